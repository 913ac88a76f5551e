import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { mintHs256Token } from '@ledgerline/auth';
import { dumpProjections, EventStore, migrate, NodeSecretsRepository, pruneLedger, rebuildProjections } from '@ledgerline/store';
import { ConfigError, loadConfig } from '../../server/src/config';
import { loadParticipantIdentity } from '../../server/src/infrastructure/participant-identity';
import { connectDatabase, makeLogger } from '../../server/src/infrastructure/runtime';
import { runSnapshotCommand, SNAPSHOT_COMMANDS, SNAPSHOT_HELP } from './commands/snapshots';

const HELP = `ledgerctl — Ledgerline admin CLI (npm run ledgerctl -- <command>)

Commands:
  migrate                          apply pending database migrations
  token --user <id> [--ttl <s>]    mint an HS256 token for a user (uses LEDGER_JWT_SECRET or the generated secret)
  participant-id                   print this participant's id
  rebuild-projections [--check]    rebuild every projection by replaying the event log
                                   (--check: compare with the live projections and report differences)
  prune --up-to <offset>           prune the ledger up to <offset> (inclusive): records a 'LedgerPruned' event; reads
                                   that start below it fail with PARTICIPANT_PRUNED_DATA_ACCESSED
${SNAPSHOT_HELP}
  help                             this text

Configuration comes from the same environment variables as the server (DATABASE_URL, LEDGER_DATA_DIR, …).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(HELP);
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      user: { type: 'string' },
      ttl: { type: 'string' },
      check: { type: 'boolean' },
      'up-to': { type: 'string' },
      server: { type: 'string' },
      snapshot: { type: 'string' },
      replace: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  // Logs (warn and above unless LEDGER_LOG_LEVEL says otherwise) go to stderr: stdout is the command's output
  // (TOKEN=$(npm run -s ledgerctl -- token …)).
  const config = loadConfig({ LEDGER_LOG_LEVEL: 'warn', ...process.env });
  const logger = makeLogger(config, 2);
  const { database, url, embedded } = await connectDatabase(config, logger);
  try {
    if (SNAPSHOT_COMMANDS.has(command)) {
      return await runSnapshotCommand(command, {
        config,
        database,
        databaseUrl: url,
        positionals,
        server: values.server,
        snapshot: values.snapshot,
        replace: values.replace,
        usage: (m) => new UsageError(m),
      });
    }
    switch (command) {
      case 'migrate': {
        const { applied } = await migrate(database.pool);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
        return 0;
      }
      case 'participant-id': {
        const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);
        console.log(identity.participantId);
        return 0;
      }
      case 'token': {
        if (!values.user) throw new UsageError('token needs --user <id>');
        const secret = config.jwtSecret ?? (await new NodeSecretsRepository().get(database.db, 'jwt_hs256_secret'));
        if (!secret) throw new UsageError('no HS256 secret: set LEDGER_JWT_SECRET, or start the server once without any JWT key configured');
        const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);
        const ttl = values.ttl ? Number(values.ttl) : 24 * 3600;
        if (!Number.isInteger(ttl) || ttl <= 0) throw new UsageError('--ttl must be a positive number of seconds');
        console.log(await mintHs256Token({ secret, userId: values.user, participantId: identity.participantId, expiresInSeconds: ttl }));
        return 0;
      }
      case 'rebuild-projections': {
        const before = values.check ? await dumpProjections(database.db) : null;
        const { events } = await rebuildProjections(database.db);
        console.log(`replayed ${events} events`);
        if (before) {
          const after = await dumpProjections(database.db);
          const differing = Object.keys(after).filter((t) => JSON.stringify(after[t]) !== JSON.stringify(before[t]));
          console.log(differing.length ? `projections differed from the replay in: ${differing.join(', ')}` : 'live projections equal the replay');
          return differing.length ? 1 : 0;
        }
        return 0;
      }
      case 'prune': {
        const raw = values['up-to'];
        if (!raw || !/^\d{1,19}$/.test(raw)) throw new UsageError('prune needs --up-to <offset> (a positive integer)');
        const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);
        const store = new EventStore(database.db, { participantId: identity.participantId });
        try {
          const pruned = await pruneLedger(store, Number(raw));
          console.log(`pruned up to offset ${pruned}`);
          return 0;
        } finally {
          await store.close();
        }
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    if (!database.pool.ended) await database.close();
    await embedded?.stop();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof ConfigError || e instanceof UsageError) console.error(e.message);
    else console.error('ledgerctl failed:', e instanceof Error ? e.message : e);
    process.exit(e instanceof UsageError ? 64 : 1);
  },
);
