/**
 * @ledgerline/daml-lf/testing: what tests and benchmarks build packages with — Canton's LF-text syntax parsed into the
 * AST, and the AST encoded as archives and DARs. Nothing at run time imports it (a dependency-cruiser rule).
 */
export {
  encodePackage,
  encodeArchivePayload,
  encodeArchive,
  LfEncodeError,
  type EncodedArchive,
} from './encode-package';
export { encodeDar, darManifest, type DalfBytes, type EncodedDar } from './encode-dar';
export { parsePackage, parseType, parseExpr, LfTextError, type ParseOptions } from './parser';
