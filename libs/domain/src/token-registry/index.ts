export * from './errors';
export * from './choice-context';
export * from './requests';
export * from './templates';
export * from './metadata';
export * from './amulet';
export * from './generic';
