import pino, { type Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import {
  CommitNotifier,
  EventStore,
  LedgerSnapshots,
  migrate,
  NodeSecretsRepository,
  openDatabase,
  startEmbeddedPostgres,
  UsersRepository,
  type Database,
  type EmbeddedPostgresHandle,
} from '@ledgerline/store';
import { decideCreateUser, useInterfaceCatalog } from '@ledgerline/domain';
import { Ed25519Verifier, ed25519WorkerScript, SignatureVerifier } from '@ledgerline/canton';
import type { LedgerConfig } from '../config';
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
    readonly databaseUrl: string,
    readonly identity: ParticipantIdentity,
    readonly eventStore: EventStore,
    readonly notifier: CommitNotifier,
    readonly metrics: HttpMetrics,
    readonly jwtSecret: string | undefined,
    /** The signature verifier (Ed25519 backend and worker thread from the configuration); the runtime closes it. */
    readonly signatures: SignatureVerifier,
    private readonly embedded: EmbeddedPostgresHandle | null,
  ) {
    this.maintenance = new LedgerMaintenance({ notifier, logger, participant: config.participantName });
    this.snapshots = new LedgerSnapshots(databaseUrl);
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

  /** `closer` runs first when the runtime closes (hosted ledgers). */
  beforeClose(closer: () => Promise<void>): void {
    this.closers.push(closer);
  }

  /** Finishes in-flight appends, then closes the pool and the embedded database. */
  async close(): Promise<void> {
    for (const closer of this.closers.splice(0)) await closer().catch((e) => this.logger.warn({ err: e }, 'closing failed'));
    await this.eventStore.close();
    await this.notifier.stop();
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

/**
 * The signature verifier of LEDGER_ED25519_BACKEND and LEDGER_ED25519_WORKER (Ed25519 checks on their own thread, see
 * libs/canton/src/ed25519-worker.ts). `workerScript`: the compiled worker, by default the one beside the compiled
 * library (dist/); run from the TypeScript sources, the caller passes one it compiled.
 */
export function signatureVerifierFor(config: Pick<LedgerConfig, 'ed25519Backend' | 'ed25519Worker'>, workerScript?: string): SignatureVerifier {
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

export async function startRuntime(config: LedgerConfig, logger = makeLogger(config), options: RuntimeOptions = {}): Promise<LedgerRuntime> {
  // Interface filters and views on every read path come from the template catalog.
  useInterfaceCatalog(config.templateCatalog);
  const { database, url, embedded } = await connectDatabase(config, logger);
  let signatures: SignatureVerifier | undefined;
  try {
    signatures = signatureVerifierFor(config, options.ed25519WorkerScript);
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
    return new LedgerRuntime(config, logger, database, url, identity, eventStore, notifier, metrics, jwtSecret, signatures, embedded);
  } catch (e) {
    await signatures?.ed25519.close().catch(() => undefined);
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
