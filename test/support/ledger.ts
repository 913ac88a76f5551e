import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintHs256Token } from '@ledgerline/auth';
import { createApp } from '@ledgerline/server/app';
import { loadConfig, type LedgerConfig } from '@ledgerline/server/config';
import { makeLogger, startRuntime, type LedgerRuntime } from '@ledgerline/server/infrastructure/runtime';
import { startGrpcServer } from '@ledgerline/server/grpc/grpc-server';
import { createTestDatabase } from './database';
import { ed25519WorkerScriptForTests } from './ed25519-worker-script';

export const TEST_JWT_SECRET = 'test-secret-for-ledgerline-tests';

export interface TestLedger {
  app: NestFastifyApplication;
  runtime: LedgerRuntime;
  config: LedgerConfig;
  url: string;
  databaseUrl: string;
  participantId: string;
  /** `127.0.0.1:<port>` of the gRPC Ledger API, when the ledger was opened with `LEDGER_GRPC_PORT` (0: any free port). */
  grpcAddress: string | null;
  /** An HS256 token for `userId` (default: the bootstrap admin). */
  token(userId?: string, opts?: { expiresInSeconds?: number; extra?: Record<string, unknown> }): Promise<string>;
  /** fetch against the service with a token for `as` (default admin); `as: null` sends no Authorization header. */
  call(
    method: string,
    path: string,
    body?: unknown,
    opts?: { as?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Starts the whole service (runtime + HTTP on an ephemeral port) on a fresh database. */
export async function startTestLedger(env: Record<string, string> = {}): Promise<TestLedger> {
  const { url: databaseUrl } = await createTestDatabase();
  return openTestLedger(databaseUrl, env);
}

/** Starts the whole service on an existing test database (a restart with the data kept, after `close()`). */
export async function openTestLedger(databaseUrl: string, env: Record<string, string> = {}): Promise<TestLedger> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LEDGER_JWT_SECRET: TEST_JWT_SECRET,
    LEDGER_LOG_LEVEL: 'silent',
    PORT: '1',
    LEDGER_GRPC_PORT: 'off',
    ...env,
  });
  const runtime = await startRuntime(config, makeLogger(config), {
    ed25519WorkerScript: ed25519WorkerScriptForTests(),
  });
  const app = await createApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  // gRPC only for the tests that ask for it, on the port they name (0: the system picks one, read back once bound).
  const grpc =
    config.grpcPort === null ? null : await startGrpcServer(app, runtime, { host: '127.0.0.1', port: config.grpcPort });
  if (grpc) runtime.grpcPort = grpc.port;
  const participantId = runtime.identity.participantId;
  const token = (
    userId = config.adminUser,
    opts: { expiresInSeconds?: number; extra?: Record<string, unknown> } = {},
  ) => mintHs256Token({ secret: TEST_JWT_SECRET, userId, participantId, ...opts });
  return {
    app,
    runtime,
    config,
    url,
    databaseUrl,
    participantId,
    grpcAddress: grpc ? `127.0.0.1:${grpc.port}` : null,
    token,
    async call(method, path, body, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.as !== null) headers.authorization = `Bearer ${await token(opts.as ?? config.adminUser)}`;
      return requestJson(url + path, method, headers, body, opts.raw);
    },
    async close() {
      await grpc?.close();
      await app.close();
      await runtime.close();
    },
  };
}

/** One request with a JSON body (or `raw` text); the answer with its text and, when it parses, its JSON. */
export async function requestJson(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
  raw?: string,
): Promise<TestResponse> {
  const all = { ...headers };
  if (body !== undefined || raw !== undefined) all['content-type'] ??= 'application/json';
  const res = await fetch(url, {
    method,
    headers: all,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The current ledger end, as a client reads it. */
export async function ledgerEnd(ledger: TestLedger): Promise<number> {
  return (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
}

/**
 * Allocates a local party on `synchronizerId` and lets the ledger's admin user act as it (what tests that submit as the
 * admin need); throws with the answer when either call is refused.
 */
export async function allocateActingParty(ledger: TestLedger, hint: string, synchronizerId: string): Promise<string> {
  const r = await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId });
  if (r.status !== 200) throw new Error(`allocating ${hint}: ${r.status} ${r.text}`);
  const id = r.json.partyDetails.party as string;
  const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
    rights: [{ kind: { CanActAs: { value: { party: id } } } }],
  });
  if (rights.status !== 200) throw new Error(`granting CanActAs(${hint}): ${rights.status} ${rights.text}`);
  return id;
}
