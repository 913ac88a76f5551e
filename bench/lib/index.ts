export * from './database';
export * from './workers';
export * from './baseline';
export * from './report';
export * from './server-args';
