export * from './format';
export * from './range';
export * from './event-filter';
export * from './projection';
export * from './authorization';
export * from './update-id';
export * from './pruning';
export * from './point-lookups';
