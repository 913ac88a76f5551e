import 'reflect-metadata';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { mintHs256Token } from '@ledgerline/auth';
import { isoMicros, parseIsoMicros } from '@ledgerline/domain';
import {
  dumpProjections,
  EventStore,
  LedgerTimeRepository,
  migrate,
  NodeSecretsRepository,
  pruneLedger,
  rebuildProjections,
} from '@ledgerline/store';
import type { Logger } from 'pino';
import { createApp } from '../../server/src/app';
import { ConfigError, loadConfig, StartRefusedError, type LedgerConfig } from '../../server/src/config';
import { readBootstrapFile } from '../../server/src/infrastructure/bootstrap-file';
import { BootstrapService } from '../../server/src/modules/bootstrap/bootstrap.service';
import { parseDurationMicros } from './duration';
import { moveLedgerTime } from '../../server/src/infrastructure/ledger-time';
import { loadParticipantIdentity } from '../../server/src/infrastructure/participant-identity';
import { connectDatabase, makeLogger, startRuntime } from '../../server/src/infrastructure/runtime';
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
  time                             print the ledger's static time (LEDGER_TIME_MODE=static; kept in the database)
  time set <timestamp>             set it (ISO-8601 UTC, e.g. 2030-01-01T00:00:00Z); never backwards
  time advance <duration>          advance it: 90s, 15m, 2h, 1d, 500ms, or ISO-8601 (PT1H30M, P1D)
  bootstrap <file>                 apply a bootstrap file (YAML or JSON: parties, users and rights, DARs, contracts)
                                   idempotently; an invalid file or a refused entry: one line per problem, exit 2
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
  if (command === 'bootstrap') return bootstrap(positionals[0], config, logger);
  const { database, url, embedded } = await connectDatabase(config, logger);
  try {
    if (SNAPSHOT_COMMANDS.has(command)) {
      return await runSnapshotCommand(command, {
        config,
        database,
        databaseUrl: typeof url === 'function' ? url() : url,
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
        if (!secret)
          throw new UsageError(
            'no HS256 secret: set LEDGER_JWT_SECRET, or start the server once without any JWT key configured',
          );
        const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);
        const ttl = values.ttl ? Number(values.ttl) : 24 * 3600;
        if (!Number.isInteger(ttl) || ttl <= 0) throw new UsageError('--ttl must be a positive number of seconds');
        console.log(
          await mintHs256Token({
            secret,
            userId: values.user,
            participantId: identity.participantId,
            expiresInSeconds: ttl,
          }),
        );
        return 0;
      }
      case 'rebuild-projections': {
        const before = values.check ? await dumpProjections(database.db) : null;
        const { events } = await rebuildProjections(database.db);
        console.log(`replayed ${events} events`);
        if (before) {
          const after = await dumpProjections(database.db);
          const differing = Object.keys(after).filter((t) => JSON.stringify(after[t]) !== JSON.stringify(before[t]));
          console.log(
            differing.length
              ? `projections differed from the replay in: ${differing.join(', ')}`
              : 'live projections equal the replay',
          );
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
      case 'time': {
        const [action, arg] = positionals;
        if (action === undefined) {
          const stored = await new LedgerTimeRepository().get(database.db);
          if (stored === null)
            throw new UsageError('the ledger has no static time: start it once with LEDGER_TIME_MODE=static');
          console.log(isoMicros(stored));
          return 0;
        }
        let move;
        if (action === 'set' && arg !== undefined) {
          let micros: bigint;
          try {
            micros = parseIsoMicros(arg);
          } catch {
            throw new UsageError(`time set needs an ISO-8601 UTC timestamp, e.g. 2030-01-01T00:00:00Z (got '${arg}')`);
          }
          move = { newTime: micros };
        } else if (action === 'advance' && arg !== undefined) {
          const micros = parseDurationMicros(arg);
          if (micros === null)
            throw new UsageError(`time advance needs a duration such as 90s, 15m, 2h, 1d or PT1H30M (got '${arg}')`);
          move = { advanceByMicros: micros };
        } else throw new UsageError('usage: time | time set <timestamp> | time advance <duration>');
        console.log(isoMicros(await moveLedgerTime(database.db, null, move)));
        return 0;
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

/** Checks and applies a bootstrap file with the server's own commands (a runtime and the Nest application, no port). */
async function bootstrap(file: string | undefined, config: LedgerConfig, logger: Logger): Promise<number> {
  if (!file) throw new UsageError('bootstrap needs the path of a bootstrap file');
  const read = readBootstrapFile(path.resolve(file));
  if (!read.spec) {
    console.error(`Invalid bootstrap file ${file}:\n${read.problems.map((p) => `  - ${p}`).join('\n')}`);
    return 2;
  }
  const runtime = await startRuntime(config, logger);
  try {
    const app = await createApp(runtime);
    try {
      const { problems, ...counts } = await app.get(BootstrapService).apply(read.spec);
      console.log(
        `parties allocated: ${counts.partiesAllocated}, users created: ${counts.usersCreated}, DARs applied: ${counts.darsUploaded}, contracts created: ${counts.contractsCreated}`,
      );
      if (problems.length) {
        console.error(`Bootstrap refused:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
        return 2;
      }
      return 0;
    } finally {
      await app.close();
    }
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof ConfigError || e instanceof UsageError || e instanceof StartRefusedError) console.error(e.message);
    else console.error('ledgerctl failed:', e instanceof Error ? e.message : e);
    process.exit(e instanceof UsageError ? 64 : e instanceof StartRefusedError ? 2 : 1);
  },
);
