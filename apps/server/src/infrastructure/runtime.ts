import pino, { type Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  CommitNotifier,
  DatabaseHosts,
  EventStore,
  LedgerUpdatesRepository,
  LedgerSnapshots,
  migrate,
  NodeSecretsRepository,
  openDatabase,
  ReadDatabase,
  startEmbeddedPostgres,
  LedgerTimeRepository,
  userCreationDecider,
  type Database,
  type EmbeddedPostgresHandle,
} from '@ledgerline/store';
import { isoMicros, StaticClock, WallClock, type LedgerClock } from '@ledgerline/domain';
import { Ed25519Verifier, ed25519WorkerScript, SignatureVerifier } from '@ledgerline/canton';
import { StartRefusedError, type LedgerConfig } from '../config';
import { HttpMetrics } from './metrics';
import { loadParticipantIdentity, type ParticipantIdentity } from './participant-identity';
import { LedgerMaintenance } from './ledger-maintenance';

/**
 * Everything the service needs before Nest starts: the database (embedded or DATABASE_URL), migrations, the participant
 * identity, the JWT secret, the event store and the bootstrap admin user. Owned by main.ts, handed to the Nest modules.
 */
export class LedgerRuntime {
  constructor(
    readonly config: LedgerConfig,
    readonly logger: Logger,
    readonly database: Database,
    /** The primary's URL (a function when it follows LEDGER_DATABASE_HOSTS). */
    readonly databaseUrl: string | (() => string),
    readonly identity: ParticipantIdentity,
    readonly eventStore: EventStore,
    readonly notifier: CommitNotifier,
    readonly metrics: HttpMetrics,
    readonly jwtSecret: string | undefined,
    /** The signature verifier (Ed25519 backend and worker thread from the configuration); the runtime closes it. */
    readonly signatures: SignatureVerifier,
    private readonly embedded: EmbeddedPostgresHandle | null,
    /** The ledger's clock (LEDGER_TIME_MODE): every rule that reads time and the writer's record times ask it. */
    readonly clock: LedgerClock,
    /** Where the query side reads: the read replicas, else the primary (see ReadDatabase). */
    readonly reads: ReadDatabase = ReadDatabase.primaryOnly(database.db),
  ) {
    this.maintenance = new LedgerMaintenance({ notifier, logger, participant: config.participantName });
    // Snapshots work on the primary the runtime started on (a failover moves them with the next start).
    this.snapshots = new LedgerSnapshots(typeof databaseUrl === 'function' ? databaseUrl() : databaseUrl);
  }

  /** Quiesces this instance around snapshot, restore and reset (attached to Fastify by createApp). */
  readonly maintenance: LedgerMaintenance;
  /** Snapshots and forks of this ledger's database (libs/store/src/snapshots). */
  readonly snapshots: LedgerSnapshots;

  get db() {
    return this.database.db;
  }

  private readonly closers: Array<() => Promise<void>> = [];
  /** True for a test ledger hosted under /ledgers/<id> by another runtime (apps/server/src/hosted-ledgers.ts). */
  hosted = false;
  /** The port the gRPC Ledger API is bound to, once it is (apps/server/src/grpc); null while it is not served. */
  grpcPort: number | null = null;

  /** `closer` runs first when the runtime closes (hosted ledgers). */
  beforeClose(closer: () => Promise<void>): void {
    this.closers.push(closer);
  }

  /** Finishes in-flight appends, then closes the pool and the embedded database. */
  async close(): Promise<void> {
    for (const closer of this.closers.splice(0))
      await closer().catch((e) => this.logger.warn({ err: e }, 'closing failed'));
    await this.eventStore.close();
    await this.notifier.stop();
    await this.reads.close();
    await this.snapshots.close();
    await this.database.close();
    await this.embedded?.stop();
    await this.signatures.ed25519.close();
  }
}

/** JSON logs (pino) on stdout; `fd: 2` sends them to stderr (ledgerctl, whose stdout is its output). */
export function makeLogger(config: Pick<LedgerConfig, 'logLevel'>, fd: 1 | 2 = 1): Logger {
  return pino({ level: config.logLevel, base: { service: 'ledgerline' } }, pino.destination({ fd, sync: true }));
}

/** The embedded PostgreSQL of LEDGER_DATA_DIR / LEDGER_EMBEDDED_PG_PORT (used when there is no DATABASE_URL). */
export function startConfiguredEmbeddedPostgres(
  config: Pick<LedgerConfig, 'dataDir' | 'embeddedPgPort'>,
  logger: Logger,
): Promise<EmbeddedPostgresHandle> {
  logger.info(
    { dataDir: config.dataDir, port: config.embeddedPgPort },
    'no DATABASE_URL: starting the embedded PostgreSQL',
  );
  return startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    log: (m) => logger.debug({ pg: m }),
  });
}

/** DATABASE_URL if set, else the embedded PostgreSQL in the data folder; migrated. */
export async function connectDatabase(
  config: LedgerConfig,
  logger: Logger,
): Promise<{ database: Database; url: string | (() => string); embedded: EmbeddedPostgresHandle | null }> {
  const embedded = config.databaseUrl ? null : await startConfiguredEmbeddedPostgres(config, logger);
  const hosts =
    config.databaseUrl && config.databaseHosts?.length
      ? new DatabaseHosts(config.databaseUrl, config.databaseHosts)
      : undefined;
  if (hosts && !(await hosts.locate()))
    logger.warn({ hosts: config.databaseHosts }, 'LEDGER_DATABASE_HOSTS: no host is a primary now; trying the first');
  const url = hosts ? () => hosts.url() : (config.databaseUrl ?? embedded!.url);
  const database = openDatabase(typeof url === 'string' ? url : url(), { max: config.dbPoolSize, hosts });
  try {
    const { applied } = await migrate(database.pool);
    if (applied.length) logger.info({ applied }, 'migrations applied');
  } catch (e) {
    await database.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
  return { database, url, embedded };
}

/**
 * The signature verifier of LEDGER_ED25519_BACKEND and LEDGER_ED25519_WORKER (Ed25519 checks on their own thread, see
 * libs/canton/src/ed25519-worker.ts). `workerScript`: the compiled worker, by default the one beside the compiled
 * library (dist/); run from the TypeScript sources, the caller passes one it compiled.
 */
export function signatureVerifierFor(
  config: Pick<LedgerConfig, 'ed25519Backend' | 'ed25519Worker'>,
  workerScript?: string,
): SignatureVerifier {
  const ed25519 = new Ed25519Verifier({
    backend: config.ed25519Backend,
    workerScript: config.ed25519Worker ? (workerScript ?? ed25519WorkerScript()) : undefined,
  });
  return new SignatureVerifier(ed25519);
}

export interface RuntimeOptions {
  /** The compiled Ed25519 worker script (see signatureVerifierFor). */
  ed25519WorkerScript?: string;
}

export async function startRuntime(
  config: LedgerConfig,
  logger = makeLogger(config),
  options: RuntimeOptions = {},
): Promise<LedgerRuntime> {
  const { database, url, embedded } = await connectDatabase(config, logger);
  let signatures: SignatureVerifier | undefined;
  let reads: ReadDatabase | undefined;
  try {
    signatures = signatureVerifierFor(config, options.ed25519WorkerScript);
    const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);

    let jwtSecret = config.jwtSecret;
    if (!jwtSecret && !config.jwtPublicKey && !config.jwksUrl) {
      jwtSecret = await new NodeSecretsRepository().getOrCreate(database.db, 'jwt_hs256_secret', () =>
        randomBytes(32).toString('base64url'),
      );
      logger.info(
        `no JWT key configured: using the generated HS256 secret kept in the database; get a token with: ${ledgerctlCommand()} token --user ${config.adminUser}`,
      );
    }

    const clock = await ledgerClockFor(config, database);
    const metrics = new HttpMetrics();
    const eventStore = new EventStore(database.db, {
      participantId: identity.participantId,
      clock: () => clock.nowMicros(),
      writer: config.writer,
      maxBatch: config.appendBatchMax,
      lingerMs: config.appendBatchLingerMs,
      onBatch: ({ size, durationMs, phases }) => {
        metrics.batchSize.observe(size);
        metrics.batchLatency.observe(durationMs / 1000);
        if (phases) for (const [phase, ms] of Object.entries(phases)) metrics.batchPhases.observe({ phase }, ms / 1000);
      },
      onError: (e) => logger.error({ err: e }, 'event-log transaction failed'),
    });
    const notifier = new CommitNotifier(url);
    // Another instance (or ledgerctl) moved the static time: follow it.
    if (clock instanceof StaticClock) {
      notifier.on('ledger-time', (micros: bigint) => clock.observe(micros));
      // After a reconnect: a move made meanwhile sent its notification to nobody here.
      notifier.on('listening', () => {
        new LedgerTimeRepository().get(database.db).then(
          (micros) => micros !== null && clock.observe(micros),
          () => undefined,
        );
      });
    }
    eventStore.events.on('committed', (end: number) => {
      metrics.ledgerEnd.set(end);
      notifier.notify(end);
    });
    reads = new ReadDatabase(database.db, config.readDatabaseUrls ?? [], {
      waitMs: config.readReplicaWaitMs,
      max: config.dbPoolSize,
    });
    const replicas = reads;
    notifier.on('ledger-end', (end: number) => replicas.primaryMoved(end));
    replicas.primaryMoved(await new LedgerUpdatesRepository().ledgerEnd(database.db));
    replicas.start();
    metrics.trackReplicas(replicas);
    await notifier.start();
    await ensureAdminUser(eventStore, config.adminUser);
    return new LedgerRuntime(
      config,
      logger,
      database,
      url,
      identity,
      eventStore,
      notifier,
      metrics,
      jwtSecret,
      signatures,
      embedded,
      clock,
      replicas,
    );
  } catch (e) {
    await signatures?.ed25519.close().catch(() => undefined);
    await reads?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
}

/** How far the last record time may be ahead of the wall clock at a wall-mode start (clock adjustments, not a mode switch). */
export const RECORD_TIME_AHEAD_MARGIN_MICROS = 1_000_000n;

/**
 * The clock of LEDGER_TIME_MODE. Static: the stored time (kept across restarts; it moves only when told), or on the
 * first static start LEDGER_STATIC_TIME_START or else the wall clock. Record times stay strictly increasing on their own
 * (the ledger head gives updates at one static time record times a microsecond apart).
 *
 * Wall: a ledger whose last record time is ahead of the wall clock (it ran in static time set to the future) would go on
 * committing record times at that time, a microsecond apart, while commands run at today's ledger time, outside every
 * tolerance; the start is refused (StartRefusedError, exit code 2) unless LEDGER_ALLOW_RECORD_TIME_AHEAD=true.
 */
export async function ledgerClockFor(
  config: Pick<LedgerConfig, 'timeMode' | 'staticTimeStart'> & Partial<Pick<LedgerConfig, 'allowRecordTimeAhead'>>,
  database: Database,
): Promise<LedgerClock> {
  if (config.timeMode === 'wall') {
    const clock = new WallClock();
    if (!config.allowRecordTimeAhead) {
      const last = await new LedgerTimeRepository().lastRecordTime(database.db);
      if (last > clock.nowMicros() + RECORD_TIME_AHEAD_MARGIN_MICROS)
        throw new StartRefusedError(
          `LEDGER_TIME_MODE=wall: the ledger's last record time ${isoMicros(last)} is ahead of the wall clock ${isoMicros(clock.nowMicros())}; ` +
            'reset the ledger (ledgerctl reset), start it in static time (LEDGER_TIME_MODE=static), ' +
            'or set LEDGER_ALLOW_RECORD_TIME_AHEAD=true to commit record times after it until the wall clock passes it',
        );
    }
    return clock;
  }
  const micros = await new LedgerTimeRepository().getOrInitialize(
    database.db,
    () => config.staticTimeStart ?? new WallClock().nowMicros(),
  );
  return new StaticClock(micros);
}

/** The bootstrap admin exists from the first start (idempotent across restarts and instances). */
export async function ensureAdminUser(store: EventStore, adminUser: string): Promise<void> {
  await store.decide(userCreationDecider, {
    claims: null,
    user: { id: adminUser, primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' },
    rights: [{ kind: 'ParticipantAdmin' }],
    ifAbsent: true,
  });
}

/**
 * How to run ledgerctl here: `npm run ledgerctl --` in a checkout (it builds first), the compiled entry point where only
 * dist/ is shipped (the Docker image).
 */
export function ledgerctlCommand(cwd = process.cwd()): string {
  return fs.existsSync(`${cwd}/scripts/build.js`) ? 'npm run ledgerctl --' : 'node dist/apps/ledgerctl/src/main.js';
}
