export * from './outbox';
export * from './topology';
