import fs from 'node:fs';
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { ensureBuilt, scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * LEDGER_WORKERS=2: a primary process and two workers sharing the port (node:cluster). Each request below goes on a
 * connection of its own, so the primary hands them to the workers in turn.
 */
beforeAll(() => ensureBuilt());

/** One request on a fresh connection (no keep-alive), so that consecutive requests reach different workers. */
function fresh(
  url: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (payload) headers['content-type'] = 'application/json';
    const req = http.request(url + path, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The worker pids the primary logged when it started listening. */
function workerPids(server: ServerProcess): number[] {
  const line = server
    .output()
    .split('\n')
    .find((l) => l.includes('workers"'));
  if (!line) throw new Error(`no start line with the workers:\n${server.output()}`);
  return JSON.parse(line).workers as number[];
}

/** Live processes whose parent is `pid` (from /proc). */
function workersOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('LEDGER_WORKERS=2', () => {
  it('serves from both workers with one ledger and per-worker metrics, replaces a killed worker, and stops all on SIGTERM', async () => {
    const { url } = await createTestDatabase();
    const server = await startServerProcess({
      DATABASE_URL: url,
      LEDGER_JWT_SECRET: TEST_JWT_SECRET,
      LEDGER_WORKERS: '2',
      LEDGER_LOG_LEVEL: 'info',
      LEDGER_SYNCHRONIZERS: 'global',
    });
    let stopped = false;
    try {
      await until('the primary to report its workers', () => server.output().includes('with 2 workers'));
      const [first, second] = workerPids(server);
      expect(first).not.toBe(second);
      expect(alive(first) && alive(second)).toBe(true);
      const token = await scopeToken();

      // Writes through both workers: one ledger, every party allocated once, one offset each, no gap.
      const before = JSON.parse((await fresh(server.url, 'GET', '/v2/state/ledger-end', token)).text).offset as number;
      const hints = Array.from({ length: 20 }, (_, i) => `cluster-${i}`);
      const allocated = await Promise.all(
        hints.map((partyIdHint) =>
          fresh(server.url, 'POST', '/v2/parties', token, { partyIdHint, identityProviderId: '' }),
        ),
      );
      expect(allocated.map((r) => (r.status === 200 ? 200 : r.text))).toEqual(hints.map(() => 200));
      const parties = allocated.map((r) => JSON.parse(r.text).partyDetails.party as string);
      for (const party of parties)
        expect((await fresh(server.url, 'GET', `/v2/parties/${encodeURIComponent(party)}`, token)).status, party).toBe(
          200,
        );
      const after = JSON.parse((await fresh(server.url, 'GET', '/v2/state/ledger-end', token)).text).offset as number;
      expect(after - before).toBe(hints.length);

      // /metrics answers with every worker's series, labelled `worker`, whichever worker takes the scrape: 10 probes
      // spread over the two add 10 across the series, and consecutive scrapes (on different workers) agree.
      const series = (text: string, name: string) =>
        [...text.matchAll(new RegExp(`^${name}\\{(?:[^}]*,)?worker="(\\d+)"[^}]*\\} (\\S+)$`, 'gm'))].map((m) => ({
          worker: m[1],
          value: Number(m[2]),
        }));
      const livez = (text: string) =>
        [
          ...text.matchAll(
            /^ledgerline_http_requests_total\{method="GET",route="\/livez",status="200",worker="\d+"\} (\d+)$/gm,
          ),
        ].reduce((sum, m) => sum + Number(m[1]), 0);
      const m0 = await fresh(server.url, 'GET', '/metrics');
      for (let i = 0; i < 10; i++) expect((await fresh(server.url, 'GET', '/livez')).status).toBe(200);
      const m1 = await fresh(server.url, 'GET', '/metrics');
      const m2 = await fresh(server.url, 'GET', '/metrics');
      expect(m1.status).toBe(200);
      expect(livez(m1.text) - livez(m0.text)).toBe(10);
      expect(livez(m2.text)).toBe(livez(m1.text));
      expect(new Set(series(m1.text, 'ledgerline_process_cpu_seconds_total').map((s) => s.worker))).toEqual(
        new Set(['0', '1']),
      );
      expect(Math.max(...series(m2.text, 'ledgerline_ledger_end').map((s) => s.value))).toBe(after);

      // A worker that dies is replaced; the service keeps answering meanwhile.
      process.kill(first, 'SIGKILL');
      await until('the worker to be replaced', () => server.output().includes('worker replaced'));
      expect(alive(first)).toBe(false);
      const replaced = server
        .output()
        .split('\n')
        .find((l) => l.includes('worker replaced'))!;
      const third = JSON.parse(replaced).pid as number;
      expect(alive(third)).toBe(true);
      for (let i = 0; i < 4; i++)
        expect((await fresh(server.url, 'GET', `/v2/parties/${encodeURIComponent(parties[0])}`, token)).status).toBe(
          200,
        );

      // SIGTERM to the primary: every worker drains and exits, then the primary exits 0.
      expect(await server.stop('SIGTERM')).toBe(0);
      stopped = true;
      await until('the workers to exit', () => !alive(second) && !alive(third), 5000);
    } finally {
      if (!stopped) await server.stop('SIGKILL');
    }
  });

  it('SIGTERM while the workers are still starting: the started ones drain, the primary exits 0, no worker is left', async () => {
    const { url } = await createTestDatabase();
    // /livez answers once the first of four workers listens; the primary is then still forking the others.
    const server = await startServerProcess({
      DATABASE_URL: url,
      LEDGER_JWT_SECRET: TEST_JWT_SECRET,
      LEDGER_WORKERS: '4',
      LEDGER_LOG_LEVEL: 'info',
    });
    const startedAll = server.output().includes('with 4 workers');
    const children = workersOf(server.proc.pid!);
    expect(children.length).toBeGreaterThanOrEqual(1);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).not.toContain('failed to start');
    await until('every worker to be gone', () => children.every((pid) => !alive(pid)), 5000);
    if (startedAll)
      console.warn(
        '[cluster] all four workers had started before the signal; the start-up path was not exercised this time',
      );
  });
});
