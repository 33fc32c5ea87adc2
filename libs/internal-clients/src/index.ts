export * from './chat.client';
export * from './contacts.client';
export * from './identity.client';
export * from './internal-http';
export * from './knowledge.client';
export * from './widgets.client';
