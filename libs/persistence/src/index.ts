export * from './app-stack';
export type * from './column-types';
export * from './data-source';
export * from './persistence.module';
export * from './timestamps';
export * from './persistence.config';
export * from './scrape-query';
export * from './sql';
