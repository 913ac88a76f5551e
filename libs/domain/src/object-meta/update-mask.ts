/**
 * Field masks (google.protobuf.FieldMask) as the reference interprets them for update requests (Canton's UpdatePathsTrie
 * and PartyRecordUpdateMapper, ledger-api-core: platform/apiserver/update/): paths
 * are proto snake_case field names split on '.', a path is valid when it is a leaf or a prefix of a leaf, duplicates and
 * unknown paths are refused, and an empty mask is refused. Generic over the resource: give it the resource's leaves.
 */
export type UpdateMaskProblem =
  | { kind: 'empty'; message: string }
  | { kind: 'unknown'; path: string; message: string }
  | { kind: 'duplicate'; path: string; message: string };

export interface ParsedUpdateMask {
  /** The paths as given (validated). */
  readonly paths: readonly string[];
  /** True if `leaf` is named exactly. */
  exact(leaf: string): boolean;
  /** True if `leaf` is named exactly or one of its proper prefixes is named. */
  covers(leaf: string): boolean;
  /** True if `leaf` is covered only through a proper prefix (e.g. `local_metadata` for `local_metadata.annotations`). */
  coveredByPrefixOnly(leaf: string): boolean;
}

const isPrefixOf = (prefix: string, leaf: string) => leaf === prefix || leaf.startsWith(`${prefix}.`);

export function parseUpdateMask(
  paths: readonly string[],
  leaves: readonly string[],
): { ok: true; mask: ParsedUpdateMask } | { ok: false; problem: UpdateMaskProblem } {
  if (paths.length === 0)
    return { ok: false, problem: { kind: 'empty', message: 'The update mask contains no entries' } };
  for (const p of paths) {
    const segments = p.split('.');
    const wellFormed = segments.every((s) => /^[a-z_][a-z0-9_]*$/.test(s));
    if (!wellFormed || !leaves.some((leaf) => isPrefixOf(p, leaf))) {
      return {
        ok: false,
        problem: { kind: 'unknown', path: p, message: `The update path: '${p}' points to an unknown field.` },
      };
    }
  }
  const seen = new Set<string>();
  for (const p of paths) {
    if (seen.has(p))
      return { ok: false, problem: { kind: 'duplicate', path: p, message: `The update path: '${p}' is duplicated.` } };
    seen.add(p);
  }
  const exact = (leaf: string) => seen.has(leaf);
  const covers = (leaf: string) => paths.some((p) => isPrefixOf(p, leaf));
  return {
    ok: true,
    mask: { paths, exact, covers, coveredByPrefixOnly: (leaf) => covers(leaf) && !exact(leaf) },
  };
}

/**
 * The value a masked update gives one field (Canton's UpdateMapperBase): named exactly → the request's value, defaults
 * included (`""` clears, `false` resets); covered only through a prefix → the request's value unless it is the default;
 * not covered → the current value.
 */
export function maskedValue<T>(
  mask: ParsedUpdateMask,
  leaf: string,
  requested: T,
  current: T,
  isDefault: (v: T) => boolean,
): T {
  if (mask.exact(leaf)) return requested;
  if (mask.coveredByPrefixOnly(leaf)) return isDefault(requested) ? current : requested;
  return current;
}
