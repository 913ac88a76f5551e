import type { Api } from './api';
import { ApiError, describeError, socketError } from './api';
import { checkpointOf, updateFormat, updateOf, type LedgerUpdate, type Readers } from './ledger';

/** What the live view says when the user may read no party. */
export const NO_READABLE_PARTY = 'This user may read no party: there are no updates to show.';

export type ConnectionState = 'connecting' | 'live' | 'paused' | 'throttled' | 'reconnecting' | 'stopped';

export interface LiveSnapshot {
  state: ConnectionState;
  /** The ledger end as last read (GET /v2/state/ledger-end, offset checkpoints, received updates). */
  ledgerEnd: number | null;
  /** Newest first; at most `keep` of them. */
  updates: readonly LedgerUpdate[];
  /** Updates received but no longer kept (older than the newest `keep`). */
  dropped: number;
  /** Received and not yet shown. */
  pending: number;
  /** The stream continues after this offset. */
  position: number;
  error: string | null;
}

export interface LiveTailOptions {
  /** Updates kept for the list (older ones are dropped; a party's or an offset's page finds them again). */
  keep?: number;
  /** The first view: this many of the latest updates, read as one descending page. */
  initial?: number;
  /** Received-but-not-shown updates at which the socket is closed (the server stops sending) … */
  highWater?: number;
  /** … and the count at which it is opened again, from the last offset received. */
  lowWater?: number;
  /** Updates shown per animation frame. */
  perFrame?: number;
  /** How often the ledger end is read while the page is open. */
  endPollMs?: number;
}

/**
 * The live view's engine: the latest updates as one descending page, then the `/v2/updates` WebSocket from the ledger
 * end on, tailing. Back-pressure: received updates wait in a queue that is drained at most `perFrame` per animation
 * frame (a hidden tab drains none); when `highWater` of them wait, the socket is closed, so the server stops sending,
 * and it is opened again from the last offset received once the queue is down to `lowWater`. Nothing is lost: a
 * stream resumes after its last offset, as it does after a pause or a dropped connection (retried with a growing
 * delay; a refused token stops it and is reported through the Api).
 */
export class LiveTail {
  private socket: WebSocket | null = null;
  private queue: LedgerUpdate[] = [];
  private updates: LedgerUpdate[] = [];
  private dropped = 0;
  private received = 0;
  private ledgerEnd: number | null = null;
  private state: ConnectionState = 'connecting';
  private error: string | null = null;
  private frame: number | null = null;
  private retryDelay = 500;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private endTimer: ReturnType<typeof setInterval> | null = null;
  private readonly opts: Required<LiveTailOptions>;

  constructor(
    private readonly api: Api,
    /** null: the user may read no party; the tail only keeps the ledger end current (it needs no party right). */
    private readonly readers: Readers | null,
    private readonly onChange: (s: LiveSnapshot) => void,
    options: LiveTailOptions = {},
  ) {
    this.opts = { keep: 1000, initial: 50, highWater: 500, lowWater: 50, perFrame: 100, endPollMs: 5000, ...options };
  }

  async start(): Promise<void> {
    if (this.readers === null) return this.startEndOnly();
    try {
      const end = await this.readEnd();
      this.received = end;
      if (end > 0) {
        const page = await this.api.post<unknown[]>(`/v2/updates?limit=${this.opts.initial}`, {
          beginExclusive: 0,
          endInclusive: end,
          descendingOrder: true,
          updateFormat: updateFormat(this.readers!),
        });
        this.updates = page.map(updateOf).filter((u): u is LedgerUpdate => u !== null);
      }
      if (this.state === 'stopped') return;
      this.endTimer = setInterval(() => void this.readEnd().catch(() => undefined), this.opts.endPollMs);
      if (this.state === 'paused') return this.emit();
      this.open();
    } catch (e) {
      this.fail(e);
    }
  }

  /** No party to read: no stream, only the ledger end, read now and every `endPollMs`. */
  private async startEndOnly(): Promise<void> {
    this.state = 'stopped';
    this.error = NO_READABLE_PARTY;
    this.emit();
    this.endTimer = setInterval(() => void this.readEnd().catch(() => undefined), this.opts.endPollMs);
    try {
      await this.readEnd();
    } catch (e) {
      this.fail(e);
    }
  }

  pause(): void {
    if (this.state === 'stopped' || this.state === 'paused') return;
    this.state = 'paused';
    this.clearRetry();
    this.close();
    this.emit();
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.error = null;
    this.open();
  }

  stop(): void {
    this.state = 'stopped';
    this.clearRetry();
    this.close();
    if (this.endTimer) clearInterval(this.endTimer);
    if (this.frame !== null) cancelAnimationFrame(this.frame);
  }

  snapshot(): LiveSnapshot {
    return {
      state: this.state,
      ledgerEnd: this.ledgerEnd,
      updates: this.updates,
      dropped: this.dropped,
      pending: this.queue.length,
      position: this.received,
      error: this.error,
    };
  }

  private async readEnd(): Promise<number> {
    const { offset } = await this.api.get<{ offset: number }>('/v2/state/ledger-end');
    this.ledgerEnd = Math.max(this.ledgerEnd ?? 0, offset);
    this.emit();
    return offset;
  }

  private open(): void {
    this.state = this.state === 'reconnecting' ? 'reconnecting' : 'connecting';
    this.emit();
    const socket = this.api.socket('/v2/updates');
    this.socket = socket;
    socket.onopen = () => {
      socket.send(JSON.stringify({ beginExclusive: this.received, updateFormat: updateFormat(this.readers!) }));
      this.state = 'live';
      this.error = null;
      this.retryDelay = 500;
      this.emit();
    };
    socket.onmessage = (m) => this.receive(socket, m.data);
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.state === 'paused' || this.state === 'throttled' || this.state === 'stopped') return;
      this.reconnect(ev.reason ? `The connection closed (${ev.code} ${ev.reason}).` : null);
    };
  }

  private receive(socket: WebSocket, data: unknown): void {
    if (this.socket !== socket) return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(String(data)) as Record<string, unknown>;
    } catch {
      return;
    }
    const error = socketError(message);
    if (error) {
      if (error.refusesToken) this.api.onTokenRefused(error);
      this.error = describeError(error);
      this.emit();
      return;
    }
    const checkpoint = checkpointOf(message);
    if (checkpoint !== null) {
      this.ledgerEnd = Math.max(this.ledgerEnd ?? 0, checkpoint);
      this.received = Math.max(this.received, checkpoint);
      this.emit();
      return;
    }
    const update = updateOf(message);
    if (!update) return;
    this.queue.push(update);
    this.received = update.offset;
    if (this.queue.length >= this.opts.highWater && this.state === 'live') {
      this.state = 'throttled';
      this.close();
      this.emit();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.frame === null) this.frame = requestAnimationFrame(() => this.drain());
  }

  private drain(): void {
    this.frame = null;
    const batch = this.queue.splice(0, this.opts.perFrame);
    for (const u of batch) {
      this.updates.unshift(u);
      this.ledgerEnd = Math.max(this.ledgerEnd ?? 0, u.offset);
    }
    if (this.updates.length > this.opts.keep) {
      this.dropped += this.updates.length - this.opts.keep;
      this.updates.length = this.opts.keep;
    }
    // A new array each time: views compare by identity.
    this.updates = this.updates.slice();
    if (this.queue.length) this.schedule();
    if (this.state === 'throttled' && this.queue.length <= this.opts.lowWater) this.open();
    this.emit();
  }

  private reconnect(reason: string | null): void {
    this.state = 'reconnecting';
    this.error = reason;
    this.emit();
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // Over HTTP first: a refused token gets its reason there (a browser sees only a failed WebSocket handshake).
      this.readEnd().then(
        () => this.state === 'reconnecting' && this.open(),
        (e) => (e instanceof ApiError && e.refusesToken ? this.fail(e) : this.reconnect(describeError(e))),
      );
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 10_000);
  }

  private fail(e: unknown): void {
    this.stop();
    this.error = describeError(e);
    this.emit();
  }

  private close(): void {
    const s = this.socket;
    this.socket = null;
    if (s && (s.readyState === WebSocket.OPEN || s.readyState === WebSocket.CONNECTING)) s.close(1000);
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private emit(): void {
    this.onChange(this.snapshot());
  }
}
