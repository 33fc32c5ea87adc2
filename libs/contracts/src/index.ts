export * from './error-response.dto';
export * from './errors';
export * from './gateway-context';
export * from './plans';
export * from './whoami.dto';
export * from './events';
