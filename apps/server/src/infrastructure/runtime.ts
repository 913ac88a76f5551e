import pino, { type Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import {
  CommitNotifier,
  EventStore,
  migrate,
  NodeSecretsRepository,
  openDatabase,
  startEmbeddedPostgres,
  UsersRepository,
  type Database,
  type EmbeddedPostgresHandle,
} from '@ledgerline/store';
import { decideCreateUser } from '@ledgerline/domain';
import { useEd25519Worker } from '@ledgerline/canton';
import type { LedgerConfig } from '../config';
import { HttpMetrics } from './metrics';
import { loadParticipantIdentity, type ParticipantIdentity } from './participant-identity';

/**
 * Everything the service needs before Nest starts: the database (embedded or DATABASE_URL), migrations, the participant
 * identity, the JWT secret, the event store and the bootstrap admin user. Owned by main.ts, handed to the Nest modules.
 */
export class LedgerRuntime {
  constructor(
    readonly config: LedgerConfig,
    readonly logger: Logger,
    readonly database: Database,
    readonly databaseUrl: string,
    readonly identity: ParticipantIdentity,
    readonly eventStore: EventStore,
    readonly notifier: CommitNotifier,
    readonly metrics: HttpMetrics,
    readonly jwtSecret: string | undefined,
    private readonly embedded: EmbeddedPostgresHandle | null,
    private readonly releaseEd25519Worker: () => void = () => undefined,
  ) {}

  get db() {
    return this.database.db;
  }

  /** Finishes in-flight appends, then closes the pool and the embedded database. */
  async close(): Promise<void> {
    await this.eventStore.close();
    await this.notifier.stop();
    await this.database.close();
    await this.embedded?.stop();
    this.releaseEd25519Worker();
  }
}

/** JSON logs (pino) on stdout; `fd: 2` sends them to stderr (ledgerctl, whose stdout is its output). */
export function makeLogger(config: Pick<LedgerConfig, 'logLevel'>, fd: 1 | 2 = 1): Logger {
  return pino({ level: config.logLevel, base: { service: 'ledgerline' } }, pino.destination({ fd, sync: true }));
}

/** The embedded PostgreSQL of LEDGER_DATA_DIR / LEDGER_EMBEDDED_PG_PORT (used when there is no DATABASE_URL). */
export function startConfiguredEmbeddedPostgres(config: Pick<LedgerConfig, 'dataDir' | 'embeddedPgPort'>, logger: Logger): Promise<EmbeddedPostgresHandle> {
  logger.info({ dataDir: config.dataDir, port: config.embeddedPgPort }, 'no DATABASE_URL: starting the embedded PostgreSQL');
  return startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log: (m) => logger.debug({ pg: m }) });
}

/** DATABASE_URL if set, else the embedded PostgreSQL in the data folder; migrated. */
export async function connectDatabase(
  config: LedgerConfig,
  logger: Logger,
): Promise<{ database: Database; url: string; embedded: EmbeddedPostgresHandle | null }> {
  const embedded = config.databaseUrl ? null : await startConfiguredEmbeddedPostgres(config, logger);
  const url = config.databaseUrl ?? embedded!.url;
  const database = openDatabase(url, { max: config.dbPoolSize });
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

export async function startRuntime(config: LedgerConfig, logger = makeLogger(config)): Promise<LedgerRuntime> {
  const { database, url, embedded } = await connectDatabase(config, logger);
  // Signature checks on their own thread (see libs/canton/src/ed25519-worker.ts), shared by the runtimes of a process.
  const releaseEd25519Worker = config.ed25519Worker ? useEd25519Worker() : () => undefined;
  try {
    const identity = await loadParticipantIdentity(database.db, config.participantName, config.synchronizerAliases);

    let jwtSecret = config.jwtSecret;
    if (!jwtSecret && !config.jwtPublicKey && !config.jwksUrl) {
      jwtSecret = await new NodeSecretsRepository().getOrCreate(database.db, 'jwt_hs256_secret', () =>
        randomBytes(32).toString('base64url'),
      );
      logger.info(`no JWT key configured: using the generated HS256 secret kept in the database; get a token with: npm run ledgerctl -- token --user ${config.adminUser}`);
    }

    const metrics = new HttpMetrics();
    const eventStore = new EventStore(database.db, {
      participantId: identity.participantId,
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
    eventStore.events.on('committed', (end: number) => {
      metrics.ledgerEnd.set(end);
      notifier.notify(end);
    });
    await notifier.start();
    await ensureAdminUser(eventStore, config.adminUser);
    return new LedgerRuntime(config, logger, database, url, identity, eventStore, notifier, metrics, jwtSecret, embedded, releaseEd25519Worker);
  } catch (e) {
    releaseEd25519Worker();
    await database.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
}

/** The bootstrap admin exists from the first start (idempotent across restarts and instances). */
export async function ensureAdminUser(store: EventStore, adminUser: string): Promise<void> {
  const users = new UsersRepository();
  await store.execute(async (tx) => {
    const state = await users.state(tx.db, adminUser);
    if (state.user) return;
    await tx.append(
      decideCreateUser(state, { id: adminUser, primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' }, [
        { kind: 'ParticipantAdmin' },
      ]),
    );
  });
}
