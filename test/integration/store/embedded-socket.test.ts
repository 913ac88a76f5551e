import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@ledgerline/store';
import { freePort } from '../../support/server-process';

/**
 * The embedded PostgreSQL's Unix socket (libs/store/src/embedded-postgres.ts): the service's URL names the socket's folder
 * where the socket could be made, and a folder that cannot hold one falls back to TCP instead of failing the start.
 */
let dataDir: string;
let port: number;
let handle: EmbeddedPostgresHandle | undefined;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-socket-'));
  port = await freePort();
});

afterAll(async () => {
  await handle?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function serverAddress(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // NULL over a Unix socket, the server's address over TCP.
    return (await client.query<{ addr: string | null }>('SELECT host(inet_server_addr()) AS addr')).rows[0].addr;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL socket', () => {
  it(
    'falls back to TCP when its socket folder cannot hold a socket, and uses the socket in its data folder otherwise',
    { timeout: 120_000 },
    async () => {
      const logs: string[] = [];
      handle = await startEmbeddedPostgres({
        dataDir,
        port,
        socketDir: path.join(dataDir, 'no-such-folder'),
        log: (m) => logs.push(m),
      });
      expect(new URL(handle.url).hostname).toBe('127.0.0.1');
      expect(await serverAddress(handle.url)).toBe('127.0.0.1');
      expect(logs.some((m) => m.includes('starting it on TCP only'))).toBe(true);
      await handle.stop();
      handle = undefined;

      handle = await startEmbeddedPostgres({ dataDir, port });
      const pgDir = path.join(dataDir, 'pg');
      expect(decodeURIComponent(new URL(handle.url).hostname)).toBe(pgDir);
      expect(await serverAddress(handle.url)).toBeNull();
      // TCP stays open for other tools.
      expect(await serverAddress(handle.url.replace(/@[^/]+\//, `@127.0.0.1:${port}/`))).toBe('127.0.0.1');
    },
  );
});
