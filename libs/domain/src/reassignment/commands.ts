/**
 * Reassignment commands as the JSON body carries them (after schema validation: every key optional, as the reference's
 * relaxed codec pre-fills absent keys), and as the rules see them once validated.
 */

export interface RawUnassignCommand {
  contractId?: string;
  source?: string;
  target?: string;
}

export interface RawAssignCommand {
  reassignmentId?: string;
  source?: string;
  target?: string;
}

/** `{"UnassignCommand":{"value":{…}}}`, `{"AssignCommand":{"value":{…}}}` or `{"Empty":{}}`. */
export interface RawReassignmentCommand {
  command?: {
    UnassignCommand?: { value?: RawUnassignCommand };
    AssignCommand?: { value?: RawAssignCommand };
    Empty?: Record<string, never>;
  };
}

export interface RawReassignmentCommands {
  workflowId?: string;
  userId?: string;
  commandId?: string;
  submitter?: string;
  submissionId?: string;
  commands?: RawReassignmentCommand[];
}

/** The shapes a valid batch can take: exactly one assign, or unassigns that share source and target. */
export type ReassignmentBatch =
  | { kind: 'unassign'; source: string; target: string; contractIds: string[] }
  | { kind: 'assign'; source: string; target: string; reassignmentId: string };

export interface ReassignmentSubmission {
  userId: string;
  submitter: string;
  commandId: string;
  workflowId: string;
  submissionId: string;
  batch: ReassignmentBatch;
}
