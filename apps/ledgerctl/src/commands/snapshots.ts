import { mintHs256Token } from '@ledgerline/auth';
import { LedgerSnapshots, NodeSecretsRepository, type Database } from '@ledgerline/store';
import type { LedgerConfig } from '../../../server/src/config';
import { loadParticipantIdentity } from '../../../server/src/infrastructure/participant-identity';

/**
 * ledgerctl's snapshot commands. With `--server <url>` they go through the running server's admin API (which quiesces
 * it around the copy, ends open streams, and clears its caches); without, they work on the database directly, which is
 * only safe while no server uses it.
 */
export const SNAPSHOT_HELP = `  snapshots                        list the snapshots
  snapshot <name> [--replace]      save the whole ledger as snapshot <name>
  restore <name>                   replace the ledger with snapshot <name>
  reset [--snapshot <name>]        empty the ledger (participant id, secrets and admin user kept), or restore <name>
  fork <snapshot> <name>           a new ledger database copied from <snapshot>; prints its name
  forks                            list the forks
  snapshot-delete <name>           delete snapshot <name>
  fork-delete <name>               delete fork <name>
                                   These take --server <url> (e.g. http://localhost:7575) to act through a running
                                   server; without it they act on the database directly: stop the server first.`;

export const SNAPSHOT_COMMANDS = new Set([
  'snapshots',
  'snapshot',
  'restore',
  'reset',
  'fork',
  'forks',
  'snapshot-delete',
  'fork-delete',
]);

export interface SnapshotCommandContext {
  config: LedgerConfig;
  database: Database;
  databaseUrl: string;
  positionals: string[];
  server?: string;
  snapshot?: string;
  replace?: boolean;
  usage(message: string): Error;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** Runs one snapshot command; prints its JSON answer. Returns the exit code. */
export async function runSnapshotCommand(command: string, ctx: SnapshotCommandContext): Promise<number> {
  const [a, b] = ctx.positionals;
  const need = (v: string | undefined, what: string) => {
    if (!v) throw ctx.usage(`${command} needs ${what}`);
    return v;
  };
  const call: Call = (() => {
    switch (command) {
      case 'snapshots':
        return { method: 'GET', path: '/v2/admin/snapshots' };
      case 'snapshot':
        return {
          method: 'POST',
          path: '/v2/admin/snapshots',
          body: { name: need(a, '<name>'), replace: ctx.replace === true },
        };
      case 'restore':
        return { method: 'POST', path: `/v2/admin/snapshots/${encodeURIComponent(need(a, '<name>'))}/restore` };
      case 'reset':
        return { method: 'POST', path: '/v2/admin/reset', body: ctx.snapshot ? { snapshot: ctx.snapshot } : {} };
      case 'fork':
        return {
          method: 'POST',
          path: `/v2/admin/snapshots/${encodeURIComponent(need(a, '<snapshot> <name>'))}/fork`,
          body: { name: need(b, '<snapshot> <name>') },
        };
      case 'forks':
        return { method: 'GET', path: '/v2/admin/forks' };
      case 'snapshot-delete':
        return { method: 'DELETE', path: `/v2/admin/snapshots/${encodeURIComponent(need(a, '<name>'))}` };
      default:
        return { method: 'DELETE', path: `/v2/admin/forks/${encodeURIComponent(need(a, '<name>'))}` };
    }
  })();
  if (ctx.server) return viaServer(ctx, call);
  const snapshots = new LedgerSnapshots(ctx.databaseUrl);
  try {
    // The CLI's own pool would otherwise hold sessions on the database that is copied or replaced.
    await ctx.database.pool.end();
    const out = await direct(command, snapshots, a, b, ctx);
    console.log(JSON.stringify(out));
    return out === null ? 1 : 0;
  } finally {
    await snapshots.close();
  }
}

async function direct(
  command: string,
  s: LedgerSnapshots,
  a: string | undefined,
  b: string | undefined,
  ctx: SnapshotCommandContext,
): Promise<unknown> {
  switch (command) {
    case 'snapshots':
      return { snapshots: await s.list() };
    case 'snapshot':
      return s.snapshot(a!, { replace: ctx.replace === true });
    case 'restore': {
      const info = await s.restore(a!);
      return { restored: info.name, ledgerEnd: info.ledgerEnd };
    }
    case 'reset':
      // The bootstrap admin user is created by the server's next start.
      return s.reset(ctx.snapshot);
    case 'fork': {
      const f = await s.fork(a!, b!);
      return { name: f.name, fromSnapshot: f.fromSnapshot, database: s.forkDatabase(f.name) };
    }
    case 'forks':
      return {
        forks: (await s.listForks()).map((f) => ({
          name: f.name,
          fromSnapshot: f.fromSnapshot,
          database: s.forkDatabase(f.name),
        })),
      };
    case 'snapshot-delete':
      return (await s.delete(a!)) ? {} : null;
    default:
      return (await s.deleteFork(a!)) ? {} : null;
  }
}

async function viaServer(ctx: SnapshotCommandContext, call: Call): Promise<number> {
  const secret = ctx.config.jwtSecret ?? (await new NodeSecretsRepository().get(ctx.database.db, 'jwt_hs256_secret'));
  if (!secret)
    throw ctx.usage(
      'no HS256 secret to sign the admin token: set LEDGER_JWT_SECRET, or start the server once without any JWT key configured',
    );
  const identity = await loadParticipantIdentity(
    ctx.database.db,
    ctx.config.participantName,
    ctx.config.synchronizerAliases,
  );
  const token = await mintHs256Token({
    secret,
    userId: ctx.config.adminUser,
    participantId: identity.participantId,
    expiresInSeconds: 300,
  });
  const res = await fetch(new URL(call.path, ctx.server), {
    method: call.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await res.text();
  if (res.ok) console.log(text);
  else console.error(text);
  return res.ok ? 0 : 1;
}
