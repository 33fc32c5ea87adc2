export * from './background-job';
export * from './lease-due';
export * from './lease-worker';
export * from './pg-notifications';
export * from './prune-job';
export * from './retry';
export * from './sweep';
export * from './wake-loop';
