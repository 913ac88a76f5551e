export * from './interpret-commands';
