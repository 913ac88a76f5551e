export * from './bootstrap-spec';
