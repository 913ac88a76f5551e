/**
 * The transaction builder: commands → Daml-LF transaction nodes with the generic template model. Prepare and command
 * submission both build through it; templates resolve through a TemplateDirectory.
 */
export * from './template-id';
export * from './template-catalog';
export * from './template-directory';
export * from './builder-errors';
export * from './commands';
export * from './build-transaction';
