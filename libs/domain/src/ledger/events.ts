/**
 * The shape of everything in the event log. Each capability defines its own event types (see `users/events.ts`,
 * `parties/events.ts`, …); the log stores them as `{type, stream, data}`. An event that is also a ledger update
 * carries an `update` header and receives a ledger offset and an update id when it is committed.
 */
export type UpdateKind = 'Transaction' | 'Reassignment' | 'TopologyTransaction';

export interface UpdateHeaderRequest {
  kind: UpdateKind;
  synchronizerId: string;
  /** Parties that may see this update (stakeholders/witnesses); indexes party-filtered reads. */
  parties: string[];
  /** Optional command id, recorded for completions and deduplication lookups. */
  commandId?: string;
}

export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  /** The aggregate the event belongs to, e.g. `user:alice`, `party:alice::1220…`. */
  stream: string;
  data: D;
  /**
   * `JSON.stringify(data)`, when the caller has it already (serialised outside the writer, whose batch holds the ledger
   * lock while it serialises). The writer stores this text as the event's payload.
   */
  dataText?: string;
  update?: UpdateHeaderRequest;
  /**
   * Takes a ledger offset without being a ledger update: a rejected command completion, which has an offset of its own in
   * the completion stream but nothing in the update stream.
   */
  ownOffset?: boolean;
}

export interface UpdateHeader extends UpdateHeaderRequest {
  offset: number;
  updateId: string;
  /** ISO-8601 UTC with microseconds. */
  recordTime: string;
}

export interface CommittedEvent<T extends string = string, D = unknown> {
  seq: number;
  type: T;
  stream: string;
  data: D;
  update?: UpdateHeader;
  /** Its ledger offset, if it has one: an update's (`update.offset`) or an `ownOffset` event's. */
  offset?: number;
  /** ISO-8601 UTC with microseconds: when the writer committed it. Projections take time from here, never from a clock. */
  recordedAt: string;
}
