export { PackageValidationError, validatePackages } from './validation';
export { prettyKind, prettyType } from './pretty';
