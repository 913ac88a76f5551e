import { EventEmitter } from 'node:events';
import { Client } from 'pg';
import { COMMIT_CHANNEL } from './writer';
import { LEDGER_TIME_CHANNEL } from './repositories/ledger-time.repository';

/**
 * Wakes readers when the ledger end moves: in-process commits arrive through the EventStore's emitter, commits of other
 * instances through Postgres LISTEN/NOTIFY. Emits 'ledger-end' with the new offset, and 'ledger-time' with the new
 * static ledger time (µs, bigint) when any instance or ledgerctl moves it; 'listening' whenever its connection (re)starts
 * listening. Reconnects on its own.
 */
export class CommitNotifier extends EventEmitter {
  private client: Client | null = null;
  private stopped = false;
  private paused = false;
  private retry: NodeJS.Timeout | null = null;

  /** `url`: the database, or a function answering it at each (re)connection (the current primary of a host list). */
  constructor(private readonly url: string | (() => string)) {
    super();
    this.setMaxListeners(0);
  }

  async start(): Promise<void> {
    await this.connect().catch(() => this.scheduleReconnect());
  }

  notify(offset: number): void {
    this.emit('ledger-end', offset);
  }

  /** Resolves when the ledger end passes `offset`, or after `timeoutMs` (false). */
  waitBeyond(offset: number, timeoutMs: number, current: () => Promise<number>): Promise<boolean> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (v: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.off('ledger-end', onEnd);
        resolve(v);
      };
      const onEnd = (end: number) => {
        if (end > offset) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.on('ledger-end', onEnd);
      // Close the race between the caller's read and the subscription.
      current().then(
        (end) => end > offset && finish(true),
        () => undefined,
      );
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  /** Ends the LISTEN session until `resume()` (while the database is copied or replaced). */
  pause(): void {
    this.paused = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    void client?.end().catch(() => undefined);
  }

  async resume(): Promise<void> {
    if (!this.paused) return;
    this.paused = false;
    if (!this.stopped) await this.start();
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: typeof this.url === 'string' ? this.url : this.url(),
      connectionTimeoutMillis: 2000,
    });
    client.on('error', () => this.scheduleReconnect());
    client.on('end', () => this.scheduleReconnect());
    client.on('notification', (n) => {
      if (n.channel === COMMIT_CHANNEL && n.payload) this.emit('ledger-end', Number(n.payload));
      else if (n.channel === LEDGER_TIME_CHANNEL && n.payload && /^\d+$/.test(n.payload))
        this.emit('ledger-time', BigInt(n.payload));
    });
    await client.connect();
    await client.query(`LISTEN ${COMMIT_CHANNEL}; LISTEN ${LEDGER_TIME_CHANNEL}`);
    this.client = client;
    // Listening (again): what moved while it was not is read afresh by those who care.
    this.emit('listening');
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.paused || this.retry) return;
    this.client = null;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, 1000);
  }
}
