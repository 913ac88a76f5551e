/** Command submission for local parties: the request's processing order, routing, and the answers' transaction rendering. */
export * from './commands-request';
export * from './results';
export * from './simulation';
