import { CantonError } from './errors';

/**
 * Daml-LF package identity as Canton checks it: package ids, names and versions (`Ref.scala`), version order, the LF
 * versions Canton 3.5 accepts on upload, and the error an unreadable archive is refused with. Archives themselves are
 * decoded by `@ledgerline/daml-lf` (its archive module), the one decoder.
 */

/** The LF versions Canton 3.5 accepts on upload by default (the stable range). */
export const ACCEPTED_LF_VERSIONS = ['2.1', '2.2', '2.3'] as const;

/** An archive that is not a well-formed, self-consistent Daml-LF archive: Canton's DAR_PARSE_ERROR reasons. */
export class ArchiveParseError extends CantonError {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveParseError';
  }
}

const PACKAGE_ID = /^[A-Za-z0-9\-_ ]{1,64}$/;
const PACKAGE_NAME = /^[A-Za-z0-9\-_]{1,255}$/;
const PACKAGE_VERSION = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/;

export const isPackageId = (s: string): boolean => PACKAGE_ID.test(s);
export const isPackageName = (s: string): boolean => PACKAGE_NAME.test(s);
export const isPackageVersion = (s: string): boolean => s.length <= 255 && PACKAGE_VERSION.test(s);

/** Why `s` is not a package id (Canton's PackageId string rules), or null if it is one. */
export function packageIdProblem(s: string): string | null {
  if (s.length === 0) return 'Expected a non-empty string';
  if (s.length > 64) return `String is too long: ${s.length} > 64`;
  if (!PACKAGE_ID.test(s))
    return `non expected character 0x${s
      .split('')
      .find((c) => !/[A-Za-z0-9\-_ ]/.test(c))!
      .codePointAt(0)!
      .toString(16)} in Daml-LF Package ID "${s}"`;
  return null;
}

/** Package versions compare segment by segment as integers, a prefix being smaller (`1.10.0 > 1.9.0`, `1.0 < 1.0.0`). */
export function comparePackageVersions(a: string, b: string): number {
  const x = a.split('.').map(BigInt);
  const y = b.split('.').map(BigInt);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}
