export * from './start';
export * from './trace-context';
