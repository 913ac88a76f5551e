import { EventEmitter } from 'node:events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { failedPrecondition, transientFailure, type LedgerError } from '@ledgerline/domain';
import { renderError } from '@ledgerline/wire';
import type { CommitNotifier } from '@ledgerline/store';

/** How long a maintenance operation waits for requests in flight to answer before it gives up (503, nothing changed). */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Runs an operation that replaces or copies the ledger's database (snapshot, restore, reset) while this instance uses no
 * database session: new requests wait at the door, open WebSocket streams end with a JsCantonError frame, requests in
 * flight (open-ended lists included: they end within LEDGER_STREAM_IDLE_TIMEOUT_MS) are answered, the commit listener
 * is paused. Idle pooled connections are ended by the operation itself (libs/store/src/snapshots). Operations run one
 * at a time.
 */
export class LedgerMaintenance {
  private inFlight = 0;
  private queuedSelf = 0;
  private gate: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private fastify: FastifyInstance | null = null;
  /** Incremented by every operation that replaced the ledger's content; caches compare it. */
  generation = 0;
  private readonly replacedListeners: Array<() => void> = [];
  private readonly interruptions = new EventEmitter().setMaxListeners(0);

  constructor(private readonly deps: { notifier: CommitNotifier; logger: Logger; participant: string }) {}

  /** Counts requests and holds new ones while an operation runs. Called once, before the routes are registered. */
  attach(fastify: FastifyInstance): void {
    this.fastify = fastify;
    // Callback hooks, not async ones: they run on every request, and cost nothing but a counter while no operation runs.
    const enter = (req: FastifyRequest) => {
      // A WebSocket stream lives on after its handshake: it is ended by the operation, not waited for.
      if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') return;
      this.inFlight++;
      (req as { __counted?: boolean }).__counted = true;
    };
    fastify.addHook('onRequest', (req, _reply, next) => {
      if (!this.gate) {
        enter(req);
        return next();
      }
      void this.gate.then(() => {
        enter(req);
        next();
      });
    });
    const done = (req: FastifyRequest) => {
      if (!(req as { __counted?: boolean }).__counted) return;
      (req as { __counted?: boolean }).__counted = false;
      this.inFlight--;
      this.drained?.();
    };
    fastify.addHook('onResponse', (req, _reply, next) => {
      done(req);
      next();
    });
    fastify.addHook('onRequestAbort', (req, next) => {
      done(req);
      next();
    });
  }

  /**
   * `listener` gets the error a stream waiting for commits ends with when an operation starts (a waiting HTTP list would
   * otherwise hold the operation up to its idle timeout). Returns the unsubscribe function.
   */
  onInterrupt(listener: (error: LedgerError) => void): () => void {
    this.interruptions.on('interrupt', listener);
    return () => this.interruptions.off('interrupt', listener);
  }

  /** The error a reader that started at `generation` ends with, or null while the ledger's content is the same. */
  replacedSince(generation: number): LedgerError | null {
    return generation === this.generation
      ? null
      : failedPrecondition(
          'LEDGER_STATE_REPLACED',
          'the ledger was restored or reset while this stream was open; read the ledger end and start again',
        );
  }

  /** `listener` runs after every operation that replaced the ledger's content (restore, reset). */
  onReplaced(listener: () => void): void {
    this.replacedListeners.push(listener);
  }

  /**
   * Runs `operation` with the ledger quiescent. `self`: the calling request is in flight and is not waited for.
   * `replaces`: the operation replaces the ledger's content (streams get `reason`, caches are cleared afterwards).
   */
  run<T>(operation: () => Promise<T>, opts: { self: boolean; replaces: boolean; reason: string }): Promise<T> {
    // Requests queued behind this one are in flight too, and must not be waited for (they wait for us).
    if (opts.self) this.queuedSelf++;
    const result = this.chain.then(() => {
      if (opts.self) this.queuedSelf--;
      return this.runNow(operation, opts);
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  private async runNow<T>(
    operation: () => Promise<T>,
    opts: { self: boolean; replaces: boolean; reason: string },
  ): Promise<T> {
    let open!: () => void;
    this.gate = new Promise<void>((r) => (open = r));
    const { notifier, logger } = this.deps;
    try {
      const streamError = opts.replaces
        ? failedPrecondition(
            'LEDGER_STATE_REPLACED',
            `${opts.reason}: this stream ended; read the ledger end and start again`,
          )
        : transientFailure(`${opts.reason}: this stream ended; reconnect`);
      this.endWebSockets(streamError);
      this.interruptions.emit('interrupt', streamError);
      await this.waitForRequests(opts.self ? 1 : 0);
      notifier.pause();
      try {
        const out = await operation();
        if (opts.replaces) {
          this.generation++;
          for (const l of this.replacedListeners) l();
        }
        return out;
      } finally {
        await notifier.resume();
      }
    } catch (e) {
      logger.warn({ err: e }, `${opts.reason} failed`);
      throw e;
    } finally {
      this.gate = null;
      open();
    }
  }

  private endWebSockets(error: LedgerError): void {
    const server = (this.fastify as unknown as { websocketServer?: { clients: Set<WebSocket> } } | null)
      ?.websocketServer;
    if (!server) return;
    const frame = JSON.stringify(renderError(error, { traceId: '', participant: this.deps.participant }).body);
    for (const socket of server.clients) {
      try {
        if (socket.readyState === socket.OPEN) socket.send(frame);
        socket.close(1012, 'ledger maintenance');
      } catch {
        socket.terminate();
      }
    }
  }

  private async waitForRequests(own: number): Promise<void> {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (this.inFlight > own + this.queuedSelf) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw transientFailure(`requests in flight did not finish within ${DRAIN_TIMEOUT_MS} ms; nothing was changed`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 100));
        this.drained = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.drained = null;
    }
  }
}
