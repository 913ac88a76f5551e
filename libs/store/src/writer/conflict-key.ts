/**
 * A conflict key names state a decider's command reads or changes: `<namespace>:<id>`. The batched writer compares keys
 * as strings to split a batch into segments (segments.ts); the namespace is one of a closed list, so a misspelled one
 * does not compile.
 */
export type ConflictNamespace =
  /** A party's record (party_details), by party id. */
  | 'party'
  /** The existence of an identity provider, by its id. */
  | 'idp'
  /** A user's record and rights, by user id. */
  | 'user'
  /** The change of an execution (deduplication), by change id. */
  | 'change'
  /** A contract's state, by contract id. */
  | 'contract'
  /** `assignments:any`: the contracts assigns move, read by every contract reader (deciders/contract-conflicts.ts). */
  | 'assignments'
  /** The change of a reassignment submission (deduplication). */
  | 'reassignment-change'
  /** An unassignment, by reassignment id (its assign completes it). */
  | 'reassignment';

export type ConflictKey = `${ConflictNamespace}:${string}`;

/** The conflict key of `id` in `namespace`. */
export const conflictKey = (namespace: ConflictNamespace, id: string): ConflictKey => `${namespace}:${id}`;
