/**
 * How ledger updates are stored (the `data` of their event-log rows and `ledger_updates.payload`). The header (offset,
 * update id, record time, synchronizer) lives beside it; readers render the wire shapes (JsTransaction, JsReassignment,
 * JsTopologyTransaction) from both, filtering events per request. Every event carries the parties needed to filter it:
 * `stakeholders` (ACS_DELTA visibility) and, for LEDGER_EFFECTS visibility, the exercises' `informees` and the
 * `additionalWitnesses` of creates and exercises nested in an exercise.
 *
 * Event-log types of ledger updates: 'TransactionCommitted', 'ReassignmentCommitted', 'TopologyTransactionCommitted'.
 */

import type { StoredDeduplicationPeriod } from '../command-completions/events';

export const TRANSACTION_COMMITTED = 'TransactionCommitted';
export const REASSIGNMENT_COMMITTED = 'ReassignmentCommitted';
export const TOPOLOGY_TRANSACTION_COMMITTED = 'TopologyTransactionCommitted';

/** A contract as created: everything needed to render a CreatedEvent again (assignments re-render it). */
export interface StoredCreatedEvent {
  nodeId: number;
  contractId: string;
  /** `<packageId>:<Module>:<Entity>` */
  templateId: string;
  packageName: string;
  representativePackageId: string;
  /** Daml-LF JSON rendering of the create argument. */
  createArgument: unknown;
  /** Base64 of the contract's created-event blob ('' if none). */
  createdEventBlob: string;
  signatories: string[];
  /** stakeholders − signatories */
  observers: string[];
  /** ISO-8601 µs */
  createdAt: string;
  contractKey: unknown | null;
  contractKeyHash: string;
  /** false for a transient contract (created and archived in the same transaction). */
  acsDelta: boolean;
  /**
   * Parties that see the create in LEDGER_EFFECTS besides its stakeholders: the witnesses of the exercise it is a
   * consequence of (Canton's disclosure: a party that sees an action sees its consequences).
   */
  additionalWitnesses?: string[];
}

export interface StoredArchivedEvent {
  nodeId: number;
  contractId: string;
  templateId: string;
  packageName: string;
  stakeholders: string[];
  implementedInterfaces: string[];
}

export interface StoredExercisedEvent {
  nodeId: number;
  contractId: string;
  templateId: string;
  interfaceId: string | null;
  packageName: string;
  choice: string;
  choiceArgument: unknown;
  actingParties: string[];
  consuming: boolean;
  /** The exercise's informees: (stakeholders if consuming, else signatories) ∪ actors ∪ choice observers. */
  informees: string[];
  /** Parties that see the exercise in LEDGER_EFFECTS besides its informees: the witnesses of its parent exercise. */
  additionalWitnesses?: string[];
  /** The exercised contract's stakeholders. */
  stakeholders: string[];
  lastDescendantNodeId: number;
  exerciseResult: unknown;
  implementedInterfaces: string[];
  acsDelta: boolean;
}

export type StoredTransactionEvent =
  | { CreatedEvent: StoredCreatedEvent }
  | { ArchivedEvent: StoredArchivedEvent }
  | { ExercisedEvent: StoredExercisedEvent };

/** data of a 'TransactionCommitted' event. */
export interface StoredTransaction {
  commandId: string;
  workflowId: string;
  /** Ledger effective time, ISO-8601 µs. */
  effectiveAt: string;
  /** Hex multihash of the externally signed hash (interactive submissions), else null. */
  externalTransactionHash: string | null;
  /** In node order. ACS_DELTA readers keep CreatedEvent (acsDelta) and ArchivedEvent; LEDGER_EFFECTS readers keep CreatedEvent and ExercisedEvent. */
  events: StoredTransactionEvent[];
  /** The submission it completes; `deduplicationPeriod` as its completion reports it. */
  submission?: {
    userId: string;
    actAs: string[];
    submissionId: string;
    deduplicationPeriod?: StoredDeduplicationPeriod;
  };
}

export interface StoredUnassignedEvent {
  reassignmentId: string;
  contractId: string;
  templateId: string;
  packageName: string;
  source: string;
  target: string;
  submitter: string;
  reassignmentCounter: number;
  /** ISO-8601 µs, or null */
  assignmentExclusivity: string | null;
  stakeholders: string[];
  nodeId: number;
}

export interface StoredAssignedEvent {
  reassignmentId: string;
  source: string;
  target: string;
  submitter: string;
  reassignmentCounter: number;
  createdEvent: StoredCreatedEvent;
  stakeholders: string[];
}

/** data of a 'ReassignmentCommitted' event. */
export interface StoredReassignment {
  commandId: string;
  workflowId: string;
  events: Array<{ Unassigned: StoredUnassignedEvent } | { Assigned: StoredAssignedEvent }>;
  submission?: { userId: string; submitter: string; submissionId: string };
}

/** data of a 'TopologyTransactionCommitted' event. */
export interface StoredTopologyTransaction {
  events: Array<{
    ParticipantAuthorizationAdded?: { partyId: string; participantId: string; participantPermission: string };
    ParticipantAuthorizationChanged?: { partyId: string; participantId: string; participantPermission: string };
    ParticipantAuthorizationRevoked?: { partyId: string; participantId: string };
  }>;
}
