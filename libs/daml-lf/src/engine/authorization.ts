/**
 * Canton's authorization rules for the nodes the engine inserts (`interpreter/…/speedy/AuthorizationChecker.scala`) and
 * the failures as Canton renders them (`speedy/Pretty.scala`, `prettyFailedAuthorization`): the first failing rule wins.
 * Party lists joined by commas are Scala `mkString(",")`; sets rendered whole are the Scala collection's `toString`.
 */
import type { TypeConId } from '../language/ast';
import type { Authority } from '../transaction/partial-transaction';
import { tid } from './compiled';

const joined = (ps: readonly string[]) => ps.join(',');
const scalaSet = (kind: string, ps: readonly string[]) => `${kind}(${ps.join(', ')})`;
const node = (nodeId: number) => `node NodeId(${nodeId})`;

/** A create needs its signatories' authority, and at least one signatory. Signatories are sorted (a TreeSet). */
export function createFailure(
  nodeId: number,
  templateId: TypeConId,
  signatories: readonly string[],
  auth: Authority,
): string | undefined {
  if (!signatories.every(auth.has))
    return `${node(nodeId)} (${tid(templateId)}) requires authorizers ${joined(signatories)}, but only ${joined(auth.parties)} were given`;
  if (signatories.length === 0) return `${node(nodeId)} (${tid(templateId)}) has no signatories`;
  return undefined;
}

/**
 * An exercise needs controllers, non-empty explicit choice authorizers when the choice declares them, and the authority
 * of controllers ∪ choice authorizers. Both lists are sorted (TreeSets).
 */
export function exerciseFailure(
  nodeId: number,
  templateId: TypeConId,
  controllers: readonly string[],
  choiceAuthorizers: readonly string[] | undefined,
  auth: Authority,
): string | undefined {
  if (controllers.length === 0) return `${node(nodeId)} (${tid(templateId)}) has no controllers`;
  if (choiceAuthorizers?.length === 0) return `${node(nodeId)} (${tid(templateId)}) has no authorizers`;
  const required = [...new Set([...controllers, ...(choiceAuthorizers ?? [])])].sort();
  if (!required.every(auth.has))
    return `${node(nodeId)} (${tid(templateId)}) requires authorizers ${joined(required)}, but only ${joined(auth.parties)} were given`;
  return undefined;
}

/** A fetch needs the authority of at least one stakeholder (sorted: a TreeSet). */
export function fetchFailure(nodeId: number, stakeholders: readonly string[], auth: Authority): string | undefined {
  if (stakeholders.some(auth.has)) return undefined;
  return `${node(nodeId)} requires one of the stakeholders ${scalaSet('TreeSet', stakeholders)} of the fetched contract to be an authorizer, but authorizers were ${scalaSet(auth.kind, auth.parties)}`;
}
