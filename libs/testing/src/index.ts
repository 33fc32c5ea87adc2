export * from './accounts';
export * from './database';
export * from './processes';
export * from './stack';
export * from './rabbitmq';
export * from './producer';
export * from './https-receiver';
export * from './chat-visitor';
