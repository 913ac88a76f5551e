import { createdEventBlobOf, valueToJson } from '@ledgerline/canton';
import { isoMicros } from '../ledger/time';
import type { StoredCreatedEvent, StoredTransaction, StoredTransactionEvent } from '../ledger/updates';
import type { ConsistencyResult } from './consistency';
import { templateIdString } from './well-formedness';

/**
 * The committed form of a checked transaction: the StoredTransaction readers render, and the parties of its update
 * header. Events in execution order; node ids are pre-order positions over the whole tree (Rollback nodes count, their
 * subtrees produce no events):
 * - Create → CreatedEvent (acsDelta false when transient);
 * - Exercise → ExercisedEvent (LEDGER_EFFECTS; acsDelta when it archives an input contract), and for a consuming exercise
 *   of an input contract an ArchivedEvent at the same node id (ACS_DELTA);
 * - Fetch → nothing.
 * A node nested in an exercise is witnessed, besides its own stakeholders or informees, by the witnesses of that
 * exercise (the disclosure of `community/daml-lf/interpreter/.../lf/ledger/BlindingTransaction.scala`, which Canton's
 * indexer stores as the event's witnesses in `ledger-api-core/.../store/backend/UpdateToDbDto.scala`): those parties are the event's `additionalWitnesses`.
 */
export interface TransactionEffectsInput {
  consistency: ConsistencyResult;
  commandId: string;
  workflowId?: string;
  ledgerEffectiveTime: bigint;
  /** Hex multihash of the signed hash. */
  externalTransactionHash: string | null;
  submission?: { userId: string; actAs: string[]; submissionId: string };
}

export interface TransactionEffects {
  transaction: StoredTransaction;
  /** Everyone who sees an event: stakeholders of created/archived contracts and informees of exercises. */
  parties: string[];
}

export function buildTransactionEffects(input: TransactionEffectsInput): TransactionEffects {
  const { consistency } = input;
  const createdAt = isoMicros(input.ledgerEffectiveTime);
  const inputs = new Set(consistency.archivedInputs);
  const events: StoredTransactionEvent[] = [];
  const parties = new Set<string>();
  // The exercises enclosing the current node (innermost last): where each subtree ends and who witnesses it.
  const enclosing: Array<{ end: number; witnesses: ReadonlySet<string> }> = [];
  for (const n of consistency.effective) {
    const node = n.node;
    while (enclosing.length && enclosing[enclosing.length - 1].end < n.position) enclosing.pop();
    const inherited = enclosing.length ? enclosing[enclosing.length - 1].witnesses : undefined;
    const beyond = (own: readonly string[]) => (inherited ? [...inherited].filter((p) => !own.includes(p)) : []);
    if (node.kind === 'create') {
      const c = node.create;
      const signatories = [...new Set(c.signatories)];
      const observers = [...new Set(c.stakeholders)].filter((p) => !signatories.includes(p));
      const created: StoredCreatedEvent = {
        nodeId: n.position,
        contractId: c.contractId,
        templateId: templateIdString(c.templateId),
        packageName: c.packageName,
        representativePackageId: c.templateId!.packageId,
        createArgument: valueToJson(c.argument),
        createdEventBlob: createdEventBlobOf(c, input.ledgerEffectiveTime),
        signatories,
        observers,
        createdAt,
        contractKey: null,
        contractKeyHash: '',
        acsDelta: !consistency.transient.has(c.contractId),
      };
      const additionalWitnesses = beyond(c.stakeholders);
      if (additionalWitnesses.length) created.additionalWitnesses = additionalWitnesses;
      for (const p of c.stakeholders) parties.add(p);
      events.push({ CreatedEvent: created });
    } else if (node.kind === 'exercise') {
      const e = node.exercise;
      const templateId = templateIdString(e.templateId);
      const stakeholders = [...new Set(e.stakeholders)];
      const informees = [
        ...new Set([...(e.consuming ? e.stakeholders : e.signatories), ...e.actingParties, ...e.choiceObservers]),
      ];
      const archives = e.consuming && inputs.has(e.contractId);
      const additionalWitnesses = beyond(informees);
      enclosing.push({ end: n.lastDescendant, witnesses: new Set([...informees, ...additionalWitnesses]) });
      for (const p of informees) parties.add(p);
      events.push({
        ExercisedEvent: {
          nodeId: n.position,
          contractId: e.contractId,
          templateId,
          interfaceId: e.interfaceId ? templateIdString(e.interfaceId) : null,
          packageName: e.packageName,
          choice: e.choiceId,
          choiceArgument: valueToJson(e.chosenValue),
          actingParties: [...new Set(e.actingParties)],
          consuming: e.consuming,
          informees,
          stakeholders,
          lastDescendantNodeId: n.lastDescendant,
          exerciseResult: e.exerciseResult ? valueToJson(e.exerciseResult) : null,
          implementedInterfaces: [],
          acsDelta: archives,
          ...(additionalWitnesses.length ? { additionalWitnesses } : {}),
        },
      });
      if (archives) {
        for (const p of stakeholders) parties.add(p);
        events.push({
          ArchivedEvent: {
            nodeId: n.position,
            contractId: e.contractId,
            templateId,
            packageName: e.packageName,
            stakeholders,
            implementedInterfaces: [],
          },
        });
      }
    }
  }
  const transaction: StoredTransaction = {
    commandId: input.commandId,
    workflowId: input.workflowId ?? '',
    effectiveAt: createdAt,
    externalTransactionHash: input.externalTransactionHash,
    events,
    ...(input.submission ? { submission: input.submission } : {}),
  };
  return { transaction, parties: [...parties].sort() };
}
