import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { freePort } from '../../testkit/ports';
import { requestJson, TEST_JWT_SECRET } from './ledger';

/**
 * The built server (`node dist/apps/server/src/main.js`) as a child process, for what only a real process shows: signals,
 * SIGKILL crashes, restarts, the embedded PostgreSQL. The global setup (`global-setup.ts`) rebuilds dist/ once per run
 * when any source is newer than its build (see `fresh-build.ts`); test files only use it.
 */
export const ROOT = path.resolve(__dirname, '../..');
export const SERVER_MAIN = path.join(ROOT, 'dist/apps/server/src/main.js');
export const LEDGERCTL_MAIN = path.join(ROOT, 'dist/apps/ledgerctl/src/main.js');

/** Fails clearly when dist/ is missing (a run that bypassed the global setup). Never builds: other files may be running it. */
export function ensureBuilt(): void {
  for (const main of [SERVER_MAIN, LEDGERCTL_MAIN]) {
    if (!fs.existsSync(main))
      throw new Error(
        `${path.relative(ROOT, main)} is missing: run the tests through vitest (its global setup builds) or run node scripts/build.js`,
      );
  }
}

export { freePort };

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  port: number;
  /** The gRPC Ledger API's bound port (from GET /livez), when started with LEDGER_GRPC_PORT; read again after a restart. */
  grpcPort: number | null;
  /** Everything the process wrote so far (stdout + stderr). */
  output(): string;
  /** What it wrote to stdout (the JSON log) and to stderr, apart. */
  streams(): { stdout: string; stderr: string };
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** SIGTERM (graceful) unless told otherwise, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Starts the server with `env` (on top of a minimal environment) and waits until GET /livez answers 200. */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  opts: { readyTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  // A port picked here can still be taken by another test's listener before the child binds it: pick again then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerProcessOnce(env, opts);
    } catch (e) {
      if (env.PORT || attempt >= 3 || !/EADDRINUSE/.test(String((e as Error).message))) throw e;
    }
  }
}

async function startServerProcessOnce(
  env: Record<string, string | undefined>,
  opts: { readyTimeoutMs?: number },
): Promise<ServerProcess> {
  ensureBuilt();
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    HOST: '127.0.0.1',
    LEDGER_LOG_LEVEL: 'warn',
    // No gRPC unless the test asks for it: a fixed port would collide between files run in parallel. A test that needs
    // it passes LEDGER_GRPC_PORT=0 and reads the bound port back (grpcPort below, from GET /livez).
    LEDGER_GRPC_PORT: 'off',
  };
  for (const [k, v] of Object.entries({ ...env, PORT: String(port) })) if (v !== undefined) childEnv[k] = v;
  const proc = spawn(process.execPath, [SERVER_MAIN], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const apart = { stdout: '', stderr: '' };
  proc.stdout!.on('data', (d) => {
    out += d;
    apart.stdout += d;
  });
  proc.stderr!.on('data', (d) => {
    out += d;
    apart.stderr += d;
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  let grpcPort: number | null;
  for (;;) {
    if (exitedEarly) throw new Error(`server exited during start-up (${await exited}):\n${out}`);
    try {
      const res = await fetch(`${url}/livez`);
      if (res.status === 200) {
        grpcPort = ((await res.json()) as { grpcPort?: number }).grpcPort ?? null;
        break;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      proc.kill('SIGKILL');
      throw new Error(`server did not answer /livez in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    url,
    port,
    grpcPort,
    output: () => out,
    streams: () => ({ ...apart }),
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** An HS256 token in the (deprecated) scope form, valid for any participant id. */
export function scopeToken(userId = 'participant_admin', secret = TEST_JWT_SECRET): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'daml_ledger_api' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setExpirationTime(now + 3600)
    .sign(Buffer.from(secret));
}

export async function callJson(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const r = await requestJson(url + path, method, token ? { authorization: `Bearer ${token}` } : {}, body);
  return { status: r.status, json: r.json === undefined ? r.text : r.json };
}
