export * from './annotations';
export * from './update-mask';
export * from './resource-version';
export * from './metadata-update';
