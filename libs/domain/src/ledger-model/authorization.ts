import { failedToExecute } from './errors';
import { templateIdString, type WellFormedTransaction } from './well-formedness';

/**
 * Authorization per Daml's ledger model, without re-running Daml code:
 * - the root node is authorized by the submitting `actAs` parties (who signed);
 * - Create: signatories ≠ ∅, signatories ⊆ authorizers and signatories ⊆ stakeholders;
 * - Exercise: acting parties ≠ ∅ and ⊆ authorizers; its children are authorized by the exercised contract's
 *   signatories ∪ the acting parties;
 * - Fetch: acting parties ⊆ authorizers;
 * - Rollback: its children keep the authorizers of the rollback node (their effects are discarded, their authorization
 *   is still checked).
 * Whether the signatories an Exercise names are the contract's real ones is consistency's job (they are compared with the
 * stored contract).
 */
export function checkAuthorization(wf: WellFormedTransaction, actAs: readonly string[]): void {
  const authorizersOf: Array<ReadonlySet<string>> = [];
  const root = new Set(actAs);
  const missing = (needed: readonly string[], have: ReadonlySet<string>) => needed.filter((p) => !have.has(p));
  const list = (ps: readonly string[]) => [...new Set(ps)].sort().join(', ');

  for (const n of wf.nodes) {
    const authorizers = n.parent < 0 ? root : authorizersOf[n.parent];
    const where = (tid: string) => `node ${n.nodeId} (${tid})`;
    let childAuthorizers: ReadonlySet<string> = authorizers;
    switch (n.node.kind) {
      case 'create': {
        const c = n.node.create;
        const tid = templateIdString(c.templateId);
        if (c.signatories.length === 0) throw failedToExecute(`Create ${where(tid)} has no signatories`);
        const notStakeholders = missing(c.signatories, new Set(c.stakeholders));
        if (notStakeholders.length)
          throw failedToExecute(`Create ${where(tid)}: signatories ${list(notStakeholders)} are not stakeholders`);
        const unauthorized = missing(c.signatories, authorizers);
        if (unauthorized.length) {
          throw failedToExecute(
            `Create ${where(tid)} requires authorizers ${list(c.signatories)}, but only ${list([...authorizers])} were given (missing ${list(unauthorized)})`,
          );
        }
        break;
      }
      case 'exercise': {
        const e = n.node.exercise;
        const tid = templateIdString(e.templateId);
        if (e.actingParties.length === 0)
          throw failedToExecute(`Exercise ${where(tid)} of choice ${e.choiceId} has no acting parties`);
        const unauthorized = missing(e.actingParties, authorizers);
        if (unauthorized.length) {
          throw failedToExecute(
            `Exercise ${where(tid)} of choice ${e.choiceId} requires authorizers ${list(e.actingParties)}, but only ${list([...authorizers])} were given (missing ${list(unauthorized)})`,
          );
        }
        childAuthorizers = new Set([...e.signatories, ...e.actingParties]);
        break;
      }
      case 'fetch': {
        const f = n.node.fetch;
        const tid = templateIdString(f.templateId);
        const unauthorized = missing(f.actingParties, authorizers);
        if (unauthorized.length) {
          throw failedToExecute(
            `Fetch ${where(tid)} requires authorizers ${list(f.actingParties)}, but only ${list([...authorizers])} were given (missing ${list(unauthorized)})`,
          );
        }
        break;
      }
      case 'rollback':
        break;
    }
    authorizersOf.push(childAuthorizers);
  }
}
