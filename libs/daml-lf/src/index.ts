/**
 * @ledgerline/daml-lf: Daml-LF 2.x in TypeScript — the AST, archives and DARs, LF text, the interpreter and typed values.
 * Pure: no Nest, no SQL, no I/O, no clock (time and randomness are inputs).
 */
export * from './language/ast';

// --- interpreter, values, engine (engine-interp) ---
export * from './interpreter';
export * from './values';
export * from './engine';
export * from './transaction';
