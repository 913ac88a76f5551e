export * from './events';
export * from './package-errors';
export * from './dar-inspection';
export * from './package-rules';
export * from './vetting';
export * from './preferred-packages';
export * from './package-templates';
export * from './package-preference';
