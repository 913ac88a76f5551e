import { changes, reads, type FieldConflict } from '../writer';

/*
 * An assign changes contracts its key does not name: those of the unassignment it completes, known only once loaded.
 * Every decision that reads contracts also reads the key 'assignments:any' and every assign changes it, so a decision
 * never shares a segment with an assign queued before it, whose change of the contracts it must see.
 */
const assignments = (ids: readonly string[]) => (ids.length ? 'any' : []);

/** A field of contract ids whose state decisions read. */
export const readsContracts: readonly FieldConflict<readonly string[]>[] = [
  reads('contract'),
  reads('assignments', assignments),
];

/** A field of contract ids whose state decisions read and may change. */
export const changesContracts: readonly FieldConflict<readonly string[]>[] = [
  changes('contract'),
  reads('assignments', assignments),
];

/** The field holding the unassignment an assign completes ('' for none): it changes that unassignment's contracts. */
export const changesContractsOfAssignment: FieldConflict<string> = changes('assignments', (reassignmentId: string) =>
  reassignmentId ? 'any' : [],
);
