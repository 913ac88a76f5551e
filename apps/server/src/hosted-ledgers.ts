import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startRuntime, type LedgerRuntime } from './infrastructure/runtime';

/** `/ledgers/<id>/…`: the path prefix that addresses a hosted ledger. */
const PREFIX = /^\/ledgers\/([a-z0-9][a-z0-9-]{0,19})(\/[^?#]*)?(\?.*)?$/;
export const HOSTED_LEDGER_ID = /^[a-z0-9][a-z0-9-]{0,19}$/;

const registry = new WeakMap<LedgerRuntime, HostedLedgers>();

/** The hosted ledgers of a root runtime (null on a hosted ledger, or with LEDGER_TESTING_API off). */
export function hostedLedgersOf(runtime: LedgerRuntime): HostedLedgers | null {
  return registry.get(runtime) ?? null;
}

export interface HostedLedgerInfo {
  ledgerId: string;
  /** The ledger's base path on this server: `/ledgers/<id>`. */
  path: string;
  fromSnapshot: string | null;
  createdAt: string;
}

interface Hosted {
  info: HostedLedgerInfo;
  runtime: LedgerRuntime;
  app: NestFastifyApplication;
  handle(req: IncomingMessage, res: ServerResponse): void;
  server: http.Server;
}

export type HostedAppFactory = (
  runtime: LedgerRuntime,
  serverFactory: (handler: http.RequestListener) => http.Server,
) => Promise<NestFastifyApplication>;

/**
 * Several isolated ledgers in this one process, each addressed by the path prefix `/ledgers/<id>`: its own database (a
 * fork of a snapshot, or of an empty ledger), runtime (pool, writer, listener, caches) and HTTP application. Requests
 * and WebSocket upgrades under the prefix are handed, with the prefix removed, to that ledger's application, which never
 * listens on a port of its own. Everything else goes to the root ledger. Forks keep the root's node secrets, so the
 * participant id and the token keys are the same on every ledger.
 */
export class HostedLedgers {
  private readonly ledgers = new Map<string, Hosted>();
  private readonly starting = new Set<string>();

  constructor(
    private readonly root: LedgerRuntime,
    private readonly createApp: HostedAppFactory,
  ) {
    registry.set(root, this);
    root.beforeClose(() => this.closeAll());
  }

  /** Routes `/ledgers/<id>/…` of `server` (requests and upgrades) to the hosted ledgers. */
  attach(server: http.Server): void {
    const emit = server.emit.bind(server);
    server.emit = ((event: string, ...args: unknown[]) => {
      if (event === 'request' || event === 'upgrade') {
        const req = args[0] as IncomingMessage;
        const m = PREFIX.exec(req.url ?? '');
        if (m)
          return this.dispatch(event, m, req, args[1] as ServerResponse | Duplex, args[2] as Buffer, () =>
            emit(event, ...args),
          );
      }
      return emit(event, ...args);
    }) as typeof server.emit;
  }

  list(): HostedLedgerInfo[] {
    return [...this.ledgers.values()].map((h) => h.info);
  }

  async create(opts: { ledgerId?: string; snapshot?: string }): Promise<HostedLedgerInfo> {
    const id = opts.ledgerId ?? `t${randomBytes(6).toString('hex')}`;
    if (this.ledgers.has(id) || this.starting.has(id)) throw new HostedLedgerExists(id);
    this.starting.add(id);
    try {
      const fork = await this.root.snapshots.forkNew(forkName(id), opts.snapshot);
      let runtime: LedgerRuntime | undefined;
      try {
        const config = {
          ...this.root.config,
          databaseUrl: fork.databaseUrl,
          // A hosted ledger is small and short-lived: no worker threads of its own, a small pool, no nested hosting.
          ed25519Worker: false,
          wsRenderWorker: false,
          dbPoolSize: 4,
          testingApi: false,
        };
        runtime = await startRuntime(config, this.root.logger.child({ ledger: id }));
        runtime.hosted = true;
        let handler!: http.RequestListener;
        let server!: http.Server;
        const app = await this.createApp(runtime, (h) => {
          handler = h;
          server = http.createServer(h);
          return server;
        });
        await app.getHttpAdapter().getInstance().ready();
        const info: HostedLedgerInfo = {
          ledgerId: id,
          path: `/ledgers/${id}`,
          fromSnapshot: opts.snapshot ?? null,
          createdAt: new Date().toISOString(),
        };
        this.ledgers.set(id, { info, runtime, app, handle: handler, server });
        return info;
      } catch (e) {
        await runtime?.close().catch(() => undefined);
        await this.root.snapshots.deleteFork(forkName(id)).catch(() => undefined);
        throw e;
      }
    } finally {
      this.starting.delete(id);
    }
  }

  /** Stops ledger `id` and drops its database. False if there is none. */
  async drop(id: string): Promise<boolean> {
    const hosted = this.ledgers.get(id);
    if (!hosted) return false;
    this.ledgers.delete(id);
    for (const socket of (
      hosted.app.getHttpAdapter().getInstance() as unknown as {
        websocketServer?: { clients: Set<{ terminate(): void }> };
      }
    ).websocketServer?.clients ?? []) {
      socket.terminate();
    }
    await hosted.app.close();
    await hosted.runtime.close();
    await this.root.snapshots.deleteFork(forkName(id));
    return true;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.ledgers.keys()].map((id) => this.drop(id).catch(() => false)));
  }

  private dispatch(
    event: 'request' | 'upgrade',
    m: RegExpExecArray,
    req: IncomingMessage,
    resOrSocket: ServerResponse | Duplex,
    head: Buffer,
    toRoot: () => void,
  ): boolean {
    const hosted = this.ledgers.get(m[1]);
    req.url = (m[2] || '/') + (m[3] ?? '');
    if (!hosted) {
      // A request without credentials is answered by the root's own routing with the id stripped, which is the same
      // application a hosted ledger runs: the 401 of a known route (or the 404 of an unknown one) is then exactly what a
      // hosted ledger answers, and an id's existence shows nowhere. Only a caller presenting a token learns it.
      if (!carriesCredentials(req)) toRoot();
      else this.notHosted(event, m, resOrSocket);
      return true;
    }
    if (event === 'request') hosted.handle(req, resOrSocket as ServerResponse);
    else hosted.server.emit('upgrade', req, resOrSocket, head);
    return true;
  }

  private notHosted(event: 'request' | 'upgrade', m: RegExpExecArray, resOrSocket: ServerResponse | Duplex): void {
    const body = JSON.stringify({
      code: 'HOSTED_LEDGER_NOT_FOUND',
      cause: `no ledger '${m[1]}' is hosted here (create one with POST /v2/admin/ledgers)`,
      correlationId: null,
      traceId: null,
      context: {},
      resources: [],
      errorCategory: 11,
      grpcCodeValue: 5,
      retryInfo: null,
      definiteAnswer: null,
    });
    this.answer(event, resOrSocket, 404, body);
  }

  private answer(
    event: 'request' | 'upgrade',
    resOrSocket: ServerResponse | Duplex,
    status: number,
    body: string,
  ): void {
    if (event === 'request') {
      const res = resOrSocket as ServerResponse;
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const socket = resOrSocket as Duplex;
    if (socket.destroyed || !socket.writable) return;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
}

export class HostedLedgerExists extends Error {
  constructor(readonly ledgerId: string) {
    super(`ledger '${ledgerId}' already exists`);
  }
}

const forkName = (id: string) => `l-${id}`;

/** Whether a request presents a token at all: an Authorization header, or a `jwt.token.` WebSocket sub-protocol. */
function carriesCredentials(req: IncomingMessage): boolean {
  if (req.headers.authorization !== undefined) return true;
  const protocols = req.headers['sec-websocket-protocol'];
  return typeof protocols === 'string' && protocols.includes('jwt.token.');
}
