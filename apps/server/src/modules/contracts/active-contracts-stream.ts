import { Injectable } from '@nestjs/common';
import {
  authorizeEventFormat,
  compileAcsFormat,
  compileEventFormat,
  continuationTokens,
  renderActiveContract,
  renderIncompleteUnassigned,
  resolveActiveContractsFormat,
  validateActiveContractsRequest,
  type AcsPosition,
  type Claims,
  type CompiledEventFormat,
  type EventFormat,
  type GetActiveContractsRequest,
  type JsGetActiveContractsResponse,
} from '@ledgerline/domain';
import { ContractsRepository, LedgerUpdatesRepository, type ActivationPage } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';
import { InterfaceDirectories } from '../../infrastructure/interface-directories';
import type { ElementStream } from '../../streaming/list-collector';
import type { ByteBudget } from '../../streaming/update-stream';

/** One snapshot to read: its offset, where to start, and what the format selects. */
export interface AcsSnapshot {
  activeAtOffset: number;
  from: AcsPosition;
  /** Offset 0: the empty snapshot. */
  empty: boolean;
  format: EventFormat;
  ef: CompiledEventFormat;
  /** The parties whose activations are read; null: every activation (party-wildcard). */
  parties: string[] | null;
}

type Entry = Omit<JsGetActiveContractsResponse, 'streamContinuationToken'>;

/**
 * The active contract set at one offset as a pull-based stream (the list, the page and the WebSocket): first the
 * active contracts in activation order, read in keyset pages from the activations projection, then the incomplete
 * unassignments in unassignment order. Memory stays at a page (two with read-ahead): a consumer that stops pulling
 * stops the reads. Each element carries its position (`streamContinuationToken`).
 */
export class ActiveContractsStream<T> implements ElementStream<T> {
  private buffer: T[] = [];
  private index = 0;
  private position: AcsPosition;
  private done: boolean;
  private closed = false;
  /** The next page of activations, read ahead while the consumer takes this one. */
  private ahead: Promise<ActivationPage> | null = null;
  /** Created-event text bytes read so far (counted only with a budget). */
  private used = 0;
  /** The last page stopped at the budget. */
  private cut = false;

  constructor(
    private readonly deps: { runtime: LedgerRuntime; repo: ContractsRepository },
    private readonly snapshot: AcsSnapshot,
    private readonly pageSize: number,
    private readonly readAhead: boolean,
    private readonly render: (entry: Entry, position: AcsPosition) => T,
    /** What the whole stream may read (the list): beyond it, `next` throws `tooLarge()` (see ByteBudget). */
    private readonly budget?: ByteBudget,
  ) {
    this.position = snapshot.from;
    this.done = snapshot.empty;
  }

  close(): void {
    this.closed = true;
  }

  async next(): Promise<T | null> {
    for (;;) {
      if (this.index < this.buffer.length) return this.buffer[this.index++];
      if (this.closed || this.done) return null;
      this.buffer = [];
      this.index = 0;
      const p = this.position;
      if (p.phase === 'active') await this.readActivations(p);
      else await this.readIncomplete(p.index);
    }
  }

  private read(after: { offset: number; nodeId: number }): Promise<ActivationPage> {
    const { activeAtOffset: at, parties } = this.snapshot;
    const maxBytes = this.budget ? this.budget.maxBytes - this.used : undefined;
    return this.deps.runtime.reads.at(at, (db) =>
      this.deps.repo.activationPage(db, { at, after, parties, limit: this.pageSize, maxBytes }),
    );
  }

  /** Counts bytes read against the budget; past it, throws its error. */
  private spend(bytes: number): void {
    if (!this.budget) return;
    this.used += bytes;
    if (this.used > this.budget.maxBytes) throw this.budget.tooLarge();
  }

  private async readActivations(after: { offset: number; nodeId: number }): Promise<void> {
    // A page cut short by the budget was delivered; wanting more than it is wanting more than the budget.
    if (this.cut) throw this.budget!.tooLarge();
    const page = await (this.ahead ?? this.read(after));
    this.ahead = null;
    this.spend(page.bytes);
    if (page.cut) {
      this.cut = true;
      if (page.scanned === 0) throw this.budget!.tooLarge();
    }
    const full = page.scanned >= this.pageSize || page.cut;
    if (full && !page.cut && this.readAhead && !this.closed) {
      this.ahead = this.read(page.last);
      this.ahead.catch(() => undefined);
    }
    const { ef } = this.snapshot;
    for (const a of page.activations) {
      const e = renderActiveContract(a, ef);
      if (e) this.buffer.push(this.render(e, { phase: 'active', offset: a.offset, nodeId: a.nodeId }));
    }
    this.position = full ? { phase: 'active', ...page.last } : { phase: 'incomplete', index: -1 };
  }

  private async readIncomplete(after: number): Promise<void> {
    const at = this.snapshot.activeAtOffset;
    const list = await this.deps.runtime.reads.at(at, (db) => this.deps.repo.incompleteUnassignments(db, at));
    if (this.budget) for (const u of list) this.spend(Buffer.byteLength(JSON.stringify(u)));
    const { ef } = this.snapshot;
    list.forEach((u, i) => {
      if (i <= after) return;
      const e = renderIncompleteUnassigned(u, ef);
      if (e) this.buffer.push(this.render(e, { phase: 'incomplete', index: i }));
    });
    this.done = true;
  }
}

/**
 * Opens active-contract-set streams: the legacy filter/eventFormat matrix (JsStateService), authorization
 * (StateServiceAuthorization), then the request's checks against the ledger end and the pruning offset.
 */
@Injectable()
export class ActiveContractsReader {
  constructor(
    private readonly updates: LedgerUpdatesRepository,
    readonly repo: ContractsRepository,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly interfaces: InterfaceDirectories,
  ) {}

  /** A validated ACS format compiled, with the interfaces its interface filters need. */
  async acsFormat(format: EventFormat): Promise<ReturnType<typeof compileAcsFormat>> {
    return compileAcsFormat(format, await this.interfaces.forFormat(format));
  }

  /** A validated event format compiled, with the interfaces its interface filters need. */
  async eventFormat(format: EventFormat): Promise<CompiledEventFormat> {
    return compileEventFormat(format, await this.interfaces.forFormat(format));
  }

  get participant(): string {
    return this.identity.participantId;
  }

  /** The checked snapshot of a streaming request (list or WebSocket). */
  async snapshot(claims: Claims, req: GetActiveContractsRequest): Promise<AcsSnapshot> {
    const format = resolveActiveContractsFormat(req);
    authorizeEventFormat(claims, format);
    const position = await this.updates.position(this.runtime.db);
    const checked = validateActiveContractsRequest(req, format, position, this.participant);
    return { ...checked, format, ...(await this.acsFormat(format)) };
  }

  /** Ledger end and pruning offset now. */
  position() {
    return this.updates.position(this.runtime.db);
  }

  /** A stream of JsGetActiveContractsResponse objects, each with its continuation token; `budget`: the list's byte bound. */
  stream(
    snapshot: AcsSnapshot,
    pageSize: number,
    readAhead: boolean,
    budget?: ByteBudget,
  ): ActiveContractsStream<JsGetActiveContractsResponse> {
    const token = continuationTokens(snapshot.format, this.participant);
    return new ActiveContractsStream(
      this.deps(),
      snapshot,
      pageSize,
      readAhead,
      (e, p) => ({ ...e, streamContinuationToken: token(p) }),
      budget,
    );
  }

  /** The stream's elements with their positions (the page form makes its own tokens). */
  positioned(snapshot: AcsSnapshot, pageSize: number): ActiveContractsStream<{ entry: Entry; position: AcsPosition }> {
    return new ActiveContractsStream(this.deps(), snapshot, pageSize, false, (entry, position) => ({
      entry,
      position,
    }));
  }

  /** The WebSocket's stream: each element as its JSON text. */
  text(snapshot: AcsSnapshot, pageSize: number): ActiveContractsStream<string> {
    const token = continuationTokens(snapshot.format, this.participant);
    return new ActiveContractsStream(this.deps(), snapshot, pageSize, true, (e, p) =>
      JSON.stringify({ ...e, streamContinuationToken: token(p) }),
    );
  }

  private deps() {
    return { runtime: this.runtime, repo: this.repo };
  }
}
