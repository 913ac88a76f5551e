/**
 * @ledgerline/daml-lf: Daml-LF 2.x in TypeScript — the AST, archives and DARs, LF text, the interpreter and typed values.
 * Pure: no Nest, no SQL, no I/O, no clock (time and randomness are inputs).
 */
export * from './language/ast';

// Archives and DARs (the LF-text parser and the encoders, for tests and benchmarks: @ledgerline/daml-lf/testing)
export { LfDecodeError } from './archive/wire';
export { decodePackage, MAX_NESTING, LF2_MINORS } from './archive/decode-package';
export {
  declaredPackageId,
  decodeArchive,
  decodeArchivePayload,
  decodeDar,
  DEFAULT_MAX_DAR_BYTES,
  inspectArchive,
  templateNames,
  type ArchiveInfo,
  type DecodedArchive,
  type DecodedDar,
  type InspectedArchive,
} from './archive/decode-archive';
export { PackageCache } from './archive/package-cache';

// Validation at upload (Canton's daml-lf/validation)
export * from './validation';

// The interpreter, typed values, the engine and the partial transaction
export * from './interpreter';
export * from './values';
export * from './engine';
export * from './transaction';

// What a package holds, rendered for people (GET /v2/definitions/…, the explorer's Packages view)
export * from './definitions/package-definitions';
