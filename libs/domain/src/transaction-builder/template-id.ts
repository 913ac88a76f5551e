import { createHash } from 'node:crypto';

/**
 * Template ids as commands name them: `<package>:<Module>:<Entity>`, where `<package>` is a package id or `#package-name`
 * (exactly three `:`-separated parts, as the JSON API requires).
 */
export interface TemplateRef {
  /** `#name` reference or a package id, as written. */
  packageRef: string;
  moduleName: string;
  entityName: string;
}

const DOTTED_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const PACKAGE_ID = /^[A-Za-z0-9\-_ ]{1,64}$/;
const PACKAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9_\-.]*$/;

/** Parses a template id string; undefined when it does not have the expected syntax. */
export function parseTemplateRef(s: string): TemplateRef | undefined {
  const parts = s.split(':');
  if (parts.length !== 3) return undefined;
  const [packageRef, moduleName, entityName] = parts;
  const pkgOk = packageRef.startsWith('#') ? PACKAGE_NAME.test(packageRef.slice(1)) : PACKAGE_ID.test(packageRef);
  if (!pkgOk || !DOTTED_NAME.test(moduleName) || !DOTTED_NAME.test(entityName)) return undefined;
  return { packageRef, moduleName, entityName };
}

/** The JSON API's message for an identifier that does not parse (a decode error). */
export const invalidIdentifierMessage = (s: string) =>
  `Invalid identifier format (${s}) not matching the expected format (<package>:<moduleName>:<entityName>)`;

/**
 * Ledgerline has no package store, so a `#package-name` reference resolves to a stable package id derived from the name:
 * hex(SHA-256("ledgerline/package-name/" ‖ name)), 64 hex characters. The same name always gives the same id.
 */
export function packageIdForName(packageName: string): string {
  return createHash('sha256').update('ledgerline/package-name/').update(packageName, 'utf8').digest('hex');
}

export interface ResolvedTemplate {
  packageId: string;
  packageName: string;
  moduleName: string;
  entityName: string;
}

export const templateIdOf = (t: { packageId: string; moduleName: string; entityName: string }) =>
  `${t.packageId}:${t.moduleName}:${t.entityName}`;
