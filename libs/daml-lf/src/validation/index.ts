export { PackageValidationError, validatePackages } from './validation';
export { prettyKind, prettyType } from './pretty';
export { isUtilityPackage, supportsUpgrades, upgradeError } from './upgrades';
