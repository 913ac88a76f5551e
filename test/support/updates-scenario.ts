import {
  REASSIGNMENT_COMMITTED,
  TOPOLOGY_TRANSACTION_COMMITTED,
  TRANSACTION_COMMITTED,
  type CommittedEvent,
  type NewLedgerEvent,
  type StoredCreatedEvent,
  type StoredReassignment,
  type StoredTopologyTransaction,
  type StoredTransaction,
  type StoredTransactionEvent,
} from '@ledgerline/domain';
import type { EventStore } from '@ledgerline/store';

/**
 * A fixed ledger for the read side, written directly through the EventStore in the stored shapes of
 * libs/domain/src/ledger/updates.ts: three parties, two templates (two packages), creates, a transfer, a non-consuming
 * exercise, a transient contract, an unassign/assign pair, an archive and topology events.
 */
export const FP = '1220' + 'ab'.repeat(32);
export const ALICE = `alice::${FP}`;
export const BOB = `bob::${FP}`;
export const CAROL = `carol::${FP}`;
export const S1 = `global::1220${'01'.repeat(32)}`;
export const S2 = `secondary::1220${'02'.repeat(32)}`;
export const PARTICIPANT = `participant1::${FP}`;
export const IOU_PKG = 'a1'.repeat(32);
export const TOKEN_PKG = 'b2'.repeat(32);
export const IOU = `${IOU_PKG}:Iou:Iou`;
export const TOKEN = `${TOKEN_PKG}:Token.Main:Token`;
export const IOU_NAME = '#iou-model:Iou:Iou';
export const TOKEN_NAME = '#token-model:Token.Main:Token';

export const cid = (n: number) => `00${n.toString(16).padStart(64, '0')}ca11`;

export function created(
  n: number,
  template: 'iou' | 'token',
  signatories: string[],
  observers: string[],
  extra: Partial<StoredCreatedEvent> = {},
): StoredCreatedEvent {
  return {
    nodeId: 0,
    contractId: cid(n),
    templateId: template === 'iou' ? IOU : TOKEN,
    packageName: template === 'iou' ? 'iou-model' : 'token-model',
    representativePackageId: template === 'iou' ? IOU_PKG : TOKEN_PKG,
    createArgument: { owner: signatories[0], amount: `${n}.0000000000` },
    createdEventBlob: Buffer.from(`blob-${n}`).toString('base64'),
    signatories,
    observers,
    createdAt: '2025-05-01T10:00:00.000000Z',
    contractKey: null,
    contractKeyHash: '',
    acsDelta: true,
    ...extra,
  };
}

export const tx = (commandId: string, events: StoredTransactionEvent[], actAs: string[]): StoredTransaction => ({
  commandId,
  workflowId: `wf-${commandId}`,
  effectiveAt: '2025-05-01T10:00:00.000000Z',
  externalTransactionHash: null,
  events,
  submission: { userId: 'app', actAs, submissionId: `sub-${commandId}` },
});

export function txEvent(
  stream: string,
  data: StoredTransaction,
  parties: string[],
  synchronizerId = S1,
): NewLedgerEvent<typeof TRANSACTION_COMMITTED> {
  return {
    type: TRANSACTION_COMMITTED,
    stream,
    data,
    update: { kind: 'Transaction', synchronizerId, parties, commandId: data.commandId },
  };
}

export function topologyEvent(
  data: StoredTopologyTransaction,
  parties: string[],
): NewLedgerEvent<typeof TOPOLOGY_TRANSACTION_COMMITTED> {
  return {
    type: TOPOLOGY_TRANSACTION_COMMITTED,
    stream: 'topology',
    data,
    update: { kind: 'TopologyTransaction', synchronizerId: S1, parties },
  };
}

export function reassignmentEvent(
  data: StoredReassignment,
  parties: string[],
  synchronizerId: string,
): NewLedgerEvent<typeof REASSIGNMENT_COMMITTED> {
  return {
    type: REASSIGNMENT_COMMITTED,
    stream: 'reassignment',
    data,
    update: { kind: 'Reassignment', synchronizerId, parties, commandId: data.commandId },
  };
}

const added = (partyId: string) => ({
  ParticipantAuthorizationAdded: {
    partyId,
    participantId: PARTICIPANT,
    participantPermission: 'PARTICIPANT_PERMISSION_SUBMISSION',
  },
});

/** The scenario's updates in order (offsets 1…11 on a fresh ledger). */
export function scenarioEvents(): NewLedgerEvent[] {
  const iou1 = created(1, 'iou', [ALICE], [BOB]);
  const token1 = created(2, 'token', [BOB], [CAROL]);
  const iou2 = created(3, 'iou', [ALICE], [CAROL], { nodeId: 2 });
  const iou3 = created(4, 'iou', [CAROL], [], { acsDelta: false });
  const reassignmentId = '00' + 'cd'.repeat(16);
  return [
    // 1: topology, alice hosted
    topologyEvent({ events: [added(ALICE)] }, [ALICE]),
    // 2: topology, bob and carol hosted
    topologyEvent({ events: [added(BOB), added(CAROL)] }, [BOB, CAROL]),
    // 3: alice creates an Iou observed by bob
    txEvent('c:1', tx('cmd-create-iou', [{ CreatedEvent: iou1 }], [ALICE]), [ALICE, BOB]),
    // 4: bob creates a Token observed by carol
    txEvent('c:2', tx('cmd-create-token', [{ CreatedEvent: token1 }], [BOB]), [BOB, CAROL]),
    // 5: alice transfers the Iou to carol: archive (consuming exercise) + create
    txEvent(
      'c:1',
      tx(
        'cmd-transfer',
        [
          {
            ArchivedEvent: {
              nodeId: 0,
              contractId: iou1.contractId,
              templateId: IOU,
              packageName: 'iou-model',
              stakeholders: [ALICE, BOB],
              implementedInterfaces: [],
            },
          },
          {
            ExercisedEvent: {
              nodeId: 0,
              contractId: iou1.contractId,
              templateId: IOU,
              interfaceId: null,
              packageName: 'iou-model',
              choice: 'Transfer',
              choiceArgument: { newOwner: CAROL },
              actingParties: [ALICE],
              consuming: true,
              informees: [ALICE, BOB],
              stakeholders: [ALICE, BOB],
              lastDescendantNodeId: 2,
              exerciseResult: iou2.contractId,
              implementedInterfaces: [],
              acsDelta: true,
            },
          },
          { CreatedEvent: iou2 },
        ],
        [ALICE],
      ),
      [ALICE, BOB, CAROL],
    ),
    // 6: carol (an actor, not a stakeholder) exercises a non-consuming choice on bob's Token
    txEvent(
      'c:2',
      tx(
        'cmd-inspect',
        [
          {
            ExercisedEvent: {
              nodeId: 0,
              contractId: token1.contractId,
              templateId: TOKEN,
              interfaceId: null,
              packageName: 'token-model',
              choice: 'Inspect',
              choiceArgument: {},
              actingParties: [CAROL],
              consuming: false,
              informees: [BOB, CAROL],
              stakeholders: [BOB, CAROL],
              lastDescendantNodeId: 0,
              exerciseResult: null,
              implementedInterfaces: [],
              acsDelta: false,
            },
          },
        ],
        [CAROL],
      ),
      [BOB, CAROL],
    ),
    // 7: carol creates and archives a transient Iou
    txEvent(
      'c:4',
      tx(
        'cmd-transient',
        [
          { CreatedEvent: iou3 },
          {
            ExercisedEvent: {
              nodeId: 1,
              contractId: iou3.contractId,
              templateId: IOU,
              interfaceId: null,
              packageName: 'iou-model',
              choice: 'Archive',
              choiceArgument: {},
              actingParties: [CAROL],
              consuming: true,
              informees: [CAROL],
              stakeholders: [CAROL],
              lastDescendantNodeId: 1,
              exerciseResult: {},
              implementedInterfaces: [],
              acsDelta: false,
            },
          },
        ],
        [CAROL],
      ),
      [CAROL],
    ),
    // 8: bob unassigns the Token from S1 to S2
    reassignmentEvent(
      {
        commandId: 'cmd-unassign',
        workflowId: '',
        events: [
          {
            Unassigned: {
              reassignmentId,
              contractId: token1.contractId,
              templateId: TOKEN,
              packageName: 'token-model',
              source: S1,
              target: S2,
              submitter: BOB,
              reassignmentCounter: 1,
              assignmentExclusivity: null,
              stakeholders: [BOB, CAROL],
              nodeId: 0,
            },
          },
        ],
        submission: { userId: 'app', submitter: BOB, submissionId: 's-u' },
      },
      [BOB, CAROL],
      S1,
    ),
    // 9: bob assigns it on S2
    reassignmentEvent(
      {
        commandId: 'cmd-assign',
        workflowId: '',
        events: [
          {
            Assigned: {
              reassignmentId,
              source: S1,
              target: S2,
              submitter: BOB,
              reassignmentCounter: 1,
              createdEvent: token1,
              stakeholders: [BOB, CAROL],
            },
          },
        ],
        submission: { userId: 'app', submitter: BOB, submissionId: 's-a' },
      },
      [BOB, CAROL],
      S2,
    ),
    // 10: carol archives the Iou she received
    txEvent(
      'c:3',
      tx(
        'cmd-archive',
        [
          {
            ArchivedEvent: {
              nodeId: 0,
              contractId: iou2.contractId,
              templateId: IOU,
              packageName: 'iou-model',
              stakeholders: [ALICE, CAROL],
              implementedInterfaces: [],
            },
          },
          {
            ExercisedEvent: {
              nodeId: 0,
              contractId: iou2.contractId,
              templateId: IOU,
              interfaceId: null,
              packageName: 'iou-model',
              choice: 'Archive',
              choiceArgument: {},
              actingParties: [CAROL],
              consuming: true,
              informees: [ALICE, CAROL],
              stakeholders: [ALICE, CAROL],
              lastDescendantNodeId: 0,
              exerciseResult: {},
              implementedInterfaces: [],
              acsDelta: true,
            },
          },
        ],
        [CAROL],
      ),
      [ALICE, CAROL],
    ),
    // 11: topology, carol's permission changes
    topologyEvent(
      {
        events: [
          {
            ParticipantAuthorizationChanged: {
              partyId: CAROL,
              participantId: PARTICIPANT,
              participantPermission: 'PARTICIPANT_PERMISSION_OBSERVATION',
            },
          },
        ],
      },
      [CAROL],
    ),
  ];
}

/** Appends the scenario one update per work (so offsets follow the list) and returns the committed events. */
export async function writeScenario(store: EventStore): Promise<CommittedEvent[]> {
  const out: CommittedEvent[] = [];
  for (const e of scenarioEvents()) out.push(...(await store.append([e])));
  return out;
}
