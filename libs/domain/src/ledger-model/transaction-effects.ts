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
  for (const n of consistency.effective) {
    const node = n.node;
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
      for (const p of c.stakeholders) parties.add(p);
      events.push({ CreatedEvent: created });
    } else if (node.kind === 'exercise') {
      const e = node.exercise;
      const templateId = templateIdString(e.templateId);
      const stakeholders = [...new Set(e.stakeholders)];
      const informees = [...new Set([...(e.consuming ? e.stakeholders : e.signatories), ...e.actingParties, ...e.choiceObservers])];
      const archives = e.consuming && inputs.has(e.contractId);
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
        },
      });
      if (archives) {
        for (const p of stakeholders) parties.add(p);
        events.push({
          ArchivedEvent: { nodeId: n.position, contractId: e.contractId, templateId, packageName: e.packageName, stakeholders, implementedInterfaces: [] },
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
