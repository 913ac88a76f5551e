import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readBootstrapFile } from './infrastructure/bootstrap-file';
import { isPartyId } from '@ledgerline/canton';
import {
  EMPTY_TEMPLATE_CATALOG,
  parseIsoMicros,
  templateCatalogProblems,
  type BootstrapSpec,
  type TemplateCatalog,
} from '@ledgerline/domain';

/**
 * Configuration from environment variables, validated at start-up. Every variable is documented in README.md
 * ("Configuration"); a bad value stops the service with one clear line per problem.
 */
export interface LedgerConfig {
  /** Read replicas (hot standbys) of DATABASE_URL's database (LEDGER_READ_DATABASE_URL, comma-separated URLs; none: reads go to the primary). */
  readDatabaseUrls: string[];
  /** How long a read naming an offset no replica has replayed yet waits before it goes to the primary (LEDGER_READ_REPLICA_WAIT_MS). */
  readReplicaWaitMs: number;
  /** The hosts (host:port) that may hold DATABASE_URL's primary (LEDGER_DATABASE_HOSTS; the first one not in recovery is used). */
  databaseHosts: Array<{ host: string; port: number }>;
  databaseUrl: string | undefined;
  host: string;
  port: number;
  /** The gRPC Ledger API's port (LEDGER_GRPC_PORT; `off`: null, not served; 0: any free port, logged once bound). */
  grpcPort: number | null;
  dataDir: string;
  embeddedPgPort: number;
  jwtSecret: string | undefined;
  jwtPublicKey: string | undefined;
  jwksUrl: string | undefined;
  jwtAudience: string | undefined;
  jwtScope: string | undefined;
  participantName: string;
  adminUser: string;
  synchronizerAliases: string[];
  httpListMaxElements: number;
  streamIdleTimeoutMs: number;
  /**
   * Most bytes (stored payload text) one HTTP list answer may hold (LEDGER_HTTP_LIST_MAX_BYTES); more → 413 pointing to
   * the WebSocket form. Above LEDGER_MAX_BODY_BYTES by default, so that what one command carries can be listed.
   */
  httpListMaxBytes: number;
  /** How often an open stream re-checks its user's rights (LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS; Canton: 5 s). */
  streamRightsCheckIntervalMs: number;
  maxBodyBytes: number;
  /** How long a client may take to send a whole request, headers and body (LEDGER_HTTP_REQUEST_TIMEOUT_MS); then 408. */
  httpRequestTimeoutMs: number;
  /** Largest message a WebSocket client may send (the GetUpdatesRequest); larger → JsCantonError frame + close 1009. */
  wsMaxMessageBytes: number;
  /** Render WebSocket pages on a worker thread (LEDGER_WS_RENDER_WORKER, default true); false renders them on the event loop. */
  wsRenderWorker: boolean;
  /** Who checks Ed25519 signatures (LEDGER_ED25519_BACKEND): libsodium where its binary loads (else OpenSSL), or OpenSSL. */
  ed25519Backend: 'libsodium' | 'openssl';
  /**
   * Check executeAndWait's Ed25519 signatures on a worker thread (LEDGER_ED25519_WORKER; default true where the machine
   * has more than one CPU); false checks them on the event loop.
   */
  ed25519Worker: boolean;
  /** Update streams one user may hold open at once (WebSockets + open-ended HTTP update lists); more → 429. */
  maxStreamsPerUser: number;
  dbPoolSize: number;
  /**
   * Service processes on this machine (LEDGER_WORKERS: a number or `auto` = one per core; default 1). Above 1, a primary
   * process forks that many workers sharing the port (node:cluster); each is an instance of the service (see README).
   */
  workers: number;
  logLevel: string;
  /** The event log's writer (LEDGER_WRITER): 'batched' (group commit, default) or 'reference' (one transaction per work). */
  writer: 'batched' | 'reference';
  /** Most works committed per database transaction (group commit). */
  appendBatchMax: number;
  /** While a batch commits, how long (ms) the next one waits for more works to join it (group commit under load). */
  appendBatchLingerMs: number;
  /** Parties a non-admin user may hold rights for after allocating parties for itself (Canton's max-self-allocated-parties; 0 = self-allocation off). */
  maxSelfAllocatedParties: number;
  /** Generic template model: per template id, the argument fields holding signatories/observers (LEDGER_TEMPLATE_CATALOG). */
  templateCatalog: TemplateCatalog;
  /** Interactive submission: longest deduplication period (also what `{"Empty":{}}` means), seconds. */
  maxDeduplicationSeconds: number;
  /** Interactive submission: allowed |record time − preparationTime|, seconds. */
  preparationTimeToleranceSeconds: number;
  /** Interactive submission: allowed |record time − ledger effective time|, seconds. */
  ledgerTimeToleranceSeconds: number;
  /**
   * Command interpretation: how far (ms) the ledger's clock may pass the ledger effective time the commands run at before
   * the interpretation is aborted with INTERPRETATION_TIME_EXCEEDED (LEDGER_INTERPRETATION_TIMEOUT_MS; default: the ledger
   * time tolerance, as Canton).
   */
  interpretationTimeoutMs: number;
  /** Command interpretation: Daml engine steps after which it is aborted with INTERPRETATION_TIME_EXCEEDED (LEDGER_INTERPRETATION_MAX_STEPS). */
  interpretationMaxSteps: number;
  /** Command interpretation: MiB the Daml engine may build before INTERPRETATION_TIME_EXCEEDED (LEDGER_INTERPRETATION_MAX_MEMORY_MB). */
  interpretationMaxMemoryMb: number;
  /** After an unassignment, how long only its submitter may assign it (reassignment). */
  assignmentExclusivityTimeoutMs: number;
  /** Most uncompressed bytes read from one DAR (its manifest and the archives it names); beyond: ZIP_BOMB. */
  darMaxUncompressedBytes: number;
  /** Refuse commands whose template's package is not stored (LEDGER_STRICT_PACKAGES, default false). */
  strictPackages: boolean;
  /** The ledger's clock (LEDGER_TIME_MODE): the wall clock (default), or static time that moves only when told. */
  timeMode: 'wall' | 'static';
  /**
   * Wall mode: start even though the ledger's last record time is ahead of the wall clock (LEDGER_ALLOW_RECORD_TIME_AHEAD,
   * default false: such a start is refused with exit code 2, see ledgerClockFor).
   */
  allowRecordTimeAhead: boolean;
  /** Static mode: the time of a ledger that has none stored yet, µs since the epoch (LEDGER_STATIC_TIME_START; default: the wall clock then). */
  staticTimeStart: bigint | undefined;
  /** The declarative bootstrap file (LEDGER_BOOTSTRAP_FILE), checked at start-up and applied at every start. */
  bootstrap: BootstrapSpec | undefined;
  /** With the generated HS256 secret, print a sign-in link to the explorer at start-up (LEDGER_EXPLORER_SIGN_IN_LINK). */
  explorerSignInLink: boolean;
  /**
   * The testing admin API (LEDGER_TESTING_API): snapshots, restore, fork, reset under /v2/admin/snapshots. Default true,
   * except with NODE_ENV=production, where it is off unless set to true.
   */
  testingApi: boolean;
  /**
   * The token standard registries served besides Canton Coin's (LEDGER_TOKEN_REGISTRIES: instrument admin party ids,
   * comma-separated), each under /token-registries/<admin>/registry/….
   */
  tokenRegistries: string[];
  /** Canton Coin's instrument as the registry's metadata names it (LEDGER_AMULET_NAME, LEDGER_AMULET_SYMBOL). */
  amuletInstrumentNames: { name: string; symbol: string };
  /**
   * The Canton Coin development profile (LEDGER_CANTON_COIN): `off` (default) or `dev`: with `splice-amulet` stored, the
   * ledger holds a DSO, a validator operator and Amulet's on-ledger state, advances mining rounds, and serves the Splice
   * validator and Scan endpoints the wallet SDK calls (apps/server/src/modules/canton-coin).
   */
  cantonCoin: 'off' | 'dev';
  /** DAR files uploaded when the profile starts (LEDGER_CANTON_COIN_DARS, comma-separated paths). */
  cantonCoinDars: string[];
  /** How often the profile's DSO and validator automation looks at the ledger (LEDGER_CANTON_COIN_POLL_MS). */
  cantonCoinPollMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * A start refused for the state found rather than a variable's value (e.g. a wall-clock start on a ledger whose record
 * time is ahead of the clock): one line on stderr and exit code 2, as a ConfigError.
 */
export class StartRefusedError extends Error {}

/** Query parameters that carry secrets in connection strings and URLs (libpq's `password`, `sslpassword`, tokens). */
const SECRET_PARAM = /([?&](?:password|sslpassword|pass|pwd|secret|token|access_token|api_key|apikey)=)[^&#]*/gi;

/**
 * `raw` with its password and secret query parameters replaced by `***`, for a message that must name a URL it could not
 * use. Works on text that does not parse as a URL: everything between the user name's `:` and the last `@` counts as
 * the password (a password may itself hold `@` or `/`).
 */
export function redactUrl(raw: string): string {
  let out = raw.replace(SECRET_PARAM, '$1***');
  const at = out.lastIndexOf('@');
  if (at >= 0) {
    const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(out);
    const start = scheme ? scheme[0].length : 0;
    const colon = out.indexOf(':', start);
    if (colon >= 0 && colon < at) out = `${out.slice(0, colon + 1)}***${out.slice(at)}`;
    else if (!scheme) out = `***${out.slice(at)}`;
  }
  return out;
}

/** Why `raw` is not a URL of one of `protocols` (undefined: it is one). */
function urlProblem(raw: string, protocols: string[]): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(raw)
      ? 'it does not parse as a URL (a port that is not a number, a space, or a reserved character such as @ / # ? in the password that is not percent-encoded)'
      : `it has no scheme (expected ${protocols.map((p) => `${p}//`).join(' or ')}…)`;
  }
  if (!protocols.includes(u.protocol)) return `its scheme is ${u.protocol}`;
  return undefined;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): LedgerConfig {
  const problems: string[] = [];
  const str = (k: string) => (env[k] === undefined || env[k] === '' ? undefined : env[k]);
  const int = (k: string, def: number, min: number, max: number): number => {
    const raw = str(k);
    if (raw === undefined) return def;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${k} must be an integer between ${min} and ${max} (got '${raw}')`);
      return def;
    }
    return Number(raw);
  };
  const bool = (k: string, def: boolean): boolean => {
    const raw = str(k);
    if (raw === undefined) return def;
    if (raw !== 'true' && raw !== 'false') {
      problems.push(`${k} must be true or false (got '${raw}')`);
      return def;
    }
    return raw === 'true';
  };
  const url = (k: string, protocols: string[]): string | undefined => {
    const raw = str(k);
    if (raw === undefined) return undefined;
    const problem = urlProblem(raw, protocols);
    if (problem === undefined) return raw;
    problems.push(`${k} must be a ${protocols.join(' or ')} URL: ${problem} (got '${redactUrl(raw)}')`);
    return undefined;
  };

  const participantName = str('LEDGER_PARTICIPANT_NAME') ?? 'participant1';
  if (!NAME.test(participantName))
    problems.push(`LEDGER_PARTICIPANT_NAME must match ${NAME} (got '${participantName}')`);
  const adminUser = str('LEDGER_ADMIN_USER') ?? 'participant_admin';
  if (!/^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/.test(adminUser))
    problems.push(`LEDGER_ADMIN_USER is not a valid user id (got '${adminUser}')`);
  const aliases = (str('LEDGER_SYNCHRONIZERS') ?? 'global')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (aliases.length === 0) problems.push('LEDGER_SYNCHRONIZERS must name at least one synchronizer alias');
  for (const a of aliases) if (!NAME.test(a)) problems.push(`LEDGER_SYNCHRONIZERS: alias '${a}' must match ${NAME}`);
  if (new Set(aliases).size !== aliases.length) problems.push('LEDGER_SYNCHRONIZERS has duplicate aliases');

  const jwtPublicKey = str('LEDGER_JWT_PUBLIC_KEY');
  if (jwtPublicKey && !jwtPublicKey.includes('-----BEGIN'))
    problems.push('LEDGER_JWT_PUBLIC_KEY must be a PEM public key (-----BEGIN PUBLIC KEY-----…)');
  const logLevel = str('LEDGER_LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    problems.push(`LEDGER_LOG_LEVEL must be one of fatal,error,warn,info,debug,trace,silent (got '${logLevel}')`);

  const ed25519Backend = str('LEDGER_ED25519_BACKEND') ?? 'libsodium';
  if (ed25519Backend !== 'libsodium' && ed25519Backend !== 'openssl')
    problems.push(`LEDGER_ED25519_BACKEND must be one of libsodium,openssl (got '${ed25519Backend}')`);

  const ledgerTimeToleranceSeconds = int('LEDGER_TIME_TOLERANCE_SECONDS', 60, 1, 365 * 24 * 3600);

  const workersRaw = str('LEDGER_WORKERS');
  let workers = 1;
  if (workersRaw === 'auto') workers = Math.min(64, os.availableParallelism());
  else if (workersRaw !== undefined) {
    if (/^\d+$/.test(workersRaw) && Number(workersRaw) >= 1 && Number(workersRaw) <= 64) workers = Number(workersRaw);
    else problems.push(`LEDGER_WORKERS must be auto or an integer between 1 and 64 (got '${workersRaw}')`);
  }

  const timeMode = str('LEDGER_TIME_MODE') ?? 'wall';
  if (timeMode !== 'wall' && timeMode !== 'static')
    problems.push(`LEDGER_TIME_MODE must be wall or static (got '${timeMode}')`);
  const staticStartRaw = str('LEDGER_STATIC_TIME_START');
  let staticTimeStart: bigint | undefined;
  if (staticStartRaw !== undefined) {
    try {
      staticTimeStart = parseIsoMicros(staticStartRaw);
      if (staticTimeStart < 0n) throw new Error();
    } catch {
      problems.push(
        `LEDGER_STATIC_TIME_START must be an ISO-8601 UTC timestamp at or after 1970-01-01T00:00:00Z, e.g. 2025-01-01T00:00:00Z (got '${staticStartRaw}')`,
      );
    }
  }

  const writer = str('LEDGER_WRITER') ?? 'batched';
  if (writer !== 'batched' && writer !== 'reference')
    problems.push(`LEDGER_WRITER must be batched or reference (got '${writer}')`);

  const readDatabaseUrls = (str('LEDGER_READ_DATABASE_URL') ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const [i, u] of readDatabaseUrls.entries()) {
    const problem = urlProblem(u, ['postgres:', 'postgresql:']);
    if (problem !== undefined)
      problems.push(
        `LEDGER_READ_DATABASE_URL must be postgres: URLs separated by commas: entry ${i + 1}: ${problem} (got '${redactUrl(u)}')`,
      );
  }
  const databaseHosts = databaseHostsOf(str('LEDGER_DATABASE_HOSTS'), problems);
  if (databaseHosts.length && !str('DATABASE_URL'))
    problems.push('LEDGER_DATABASE_HOSTS needs DATABASE_URL (its user, password, database and options)');
  if (readDatabaseUrls.length && !str('DATABASE_URL'))
    problems.push('LEDGER_READ_DATABASE_URL needs DATABASE_URL (read replicas of an external PostgreSQL)');

  const cantonCoin = str('LEDGER_CANTON_COIN') ?? 'off';
  if (cantonCoin !== 'off' && cantonCoin !== 'dev')
    problems.push(`LEDGER_CANTON_COIN must be off or dev (got '${cantonCoin}')`);
  const cantonCoinDars = (str('LEDGER_CANTON_COIN_DARS') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
    .map((f) => path.resolve(cwd, f));
  for (const f of cantonCoinDars) if (!fs.existsSync(f)) problems.push(`LEDGER_CANTON_COIN_DARS: no such file ${f}`);
  if (cantonCoinDars.length && cantonCoin !== 'dev')
    problems.push('LEDGER_CANTON_COIN_DARS needs LEDGER_CANTON_COIN=dev');

  const config: LedgerConfig = {
    readDatabaseUrls,
    readReplicaWaitMs: int('LEDGER_READ_REPLICA_WAIT_MS', 500, 0, 60_000),
    databaseHosts,
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    host: str('HOST') ?? '0.0.0.0',
    port: int('PORT', 7575, 1, 65535),
    grpcPort: str('LEDGER_GRPC_PORT') === 'off' ? null : int('LEDGER_GRPC_PORT', 6865, 0, 65535),
    dataDir: path.resolve(cwd, str('LEDGER_DATA_DIR') ?? '.ledgerline'),
    embeddedPgPort: int('LEDGER_EMBEDDED_PG_PORT', 54329, 1, 65535),
    jwtSecret: str('LEDGER_JWT_SECRET'),
    jwtPublicKey,
    jwksUrl: url('LEDGER_JWKS_URL', ['http:', 'https:']),
    jwtAudience: str('LEDGER_JWT_AUDIENCE'),
    jwtScope: str('LEDGER_JWT_SCOPE'),
    participantName,
    adminUser,
    synchronizerAliases: aliases,
    httpListMaxElements: int('LEDGER_HTTP_LIST_MAX_ELEMENTS', 200, 1, 1_000_000),
    streamIdleTimeoutMs: int('LEDGER_STREAM_IDLE_TIMEOUT_MS', 500, 1, 3_600_000),
    httpListMaxBytes: int('LEDGER_HTTP_LIST_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    streamRightsCheckIntervalMs: int('LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS', 5000, 10, 3_600_000),
    maxBodyBytes: int('LEDGER_MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    httpRequestTimeoutMs: int('LEDGER_HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
    wsMaxMessageBytes: int('LEDGER_WS_MAX_MESSAGE_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    wsRenderWorker: bool('LEDGER_WS_RENDER_WORKER', true),
    ed25519Backend: ed25519Backend === 'openssl' ? 'openssl' : 'libsodium',
    ed25519Worker: bool('LEDGER_ED25519_WORKER', os.availableParallelism() > 1),
    maxStreamsPerUser: int('LEDGER_MAX_STREAMS_PER_USER', 64, 1, 1_000_000),
    dbPoolSize: int('LEDGER_DB_POOL_SIZE', 10, 2, 500),
    workers,
    logLevel,
    writer: writer === 'reference' ? 'reference' : 'batched',
    appendBatchMax: int('LEDGER_APPEND_BATCH_MAX', 256, 1, 10_000),
    appendBatchLingerMs: int('LEDGER_APPEND_BATCH_LINGER_MS', 1, 0, 1_000),
    maxSelfAllocatedParties: int('LEDGER_MAX_SELF_ALLOCATED_PARTIES', 0, 0, 1_000_000),
    templateCatalog: loadTemplateCatalog(str('LEDGER_TEMPLATE_CATALOG'), cwd, problems),
    maxDeduplicationSeconds: int('LEDGER_MAX_DEDUPLICATION_SECONDS', 7 * 24 * 3600, 1, 365 * 24 * 3600),
    preparationTimeToleranceSeconds: int('LEDGER_PREPARATION_TIME_TOLERANCE_SECONDS', 24 * 3600, 1, 365 * 24 * 3600),
    ledgerTimeToleranceSeconds,
    interpretationTimeoutMs: int(
      'LEDGER_INTERPRETATION_TIMEOUT_MS',
      ledgerTimeToleranceSeconds * 1000,
      1,
      365 * 24 * 3_600_000,
    ),
    interpretationMaxSteps: int('LEDGER_INTERPRETATION_MAX_STEPS', 50_000_000, 1, 1_000_000_000_000),
    interpretationMaxMemoryMb: int('LEDGER_INTERPRETATION_MAX_MEMORY_MB', 256, 1, 65_536),
    assignmentExclusivityTimeoutMs: int('LEDGER_ASSIGNMENT_EXCLUSIVITY_TIMEOUT_MS', 60_000, 0, 365 * 24 * 3_600_000),
    darMaxUncompressedBytes: int('LEDGER_DAR_MAX_UNCOMPRESSED_BYTES', 256 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    strictPackages: bool('LEDGER_STRICT_PACKAGES', false),
    explorerSignInLink: bool('LEDGER_EXPLORER_SIGN_IN_LINK', true),
    timeMode: timeMode === 'static' ? 'static' : 'wall',
    staticTimeStart,
    allowRecordTimeAhead: bool('LEDGER_ALLOW_RECORD_TIME_AHEAD', false),
    bootstrap: loadBootstrapFile(str('LEDGER_BOOTSTRAP_FILE'), cwd, problems),
    testingApi: bool('LEDGER_TESTING_API', env.NODE_ENV !== 'production'),
    tokenRegistries: tokenRegistriesOf(str('LEDGER_TOKEN_REGISTRIES'), problems),
    amuletInstrumentNames: {
      name: str('LEDGER_AMULET_NAME') ?? 'Amulet',
      symbol: str('LEDGER_AMULET_SYMBOL') ?? 'AMT',
    },
    cantonCoin: cantonCoin === 'dev' ? 'dev' : 'off',
    cantonCoinDars,
    cantonCoinPollMs: int('LEDGER_CANTON_COIN_POLL_MS', 1000, 10, 3_600_000),
  };
  if (config.jwtSecret !== undefined && config.jwtSecret.length < 16)
    problems.push('LEDGER_JWT_SECRET must be at least 16 characters');
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Instrument admin party ids separated by commas, each once. */
function tokenRegistriesOf(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return [];
  const admins = raw
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  for (const a of admins)
    if (!isPartyId(a))
      problems.push(`LEDGER_TOKEN_REGISTRIES must be party ids (<hint>::<namespace>) separated by commas (got '${a}')`);
  if (new Set(admins).size !== admins.length) problems.push('LEDGER_TOKEN_REGISTRIES names a party twice');
  return admins;
}

/** `host:port,host:port` (a port defaults to 5432; `[v6]:port` for IPv6 addresses). */
function databaseHostsOf(raw: string | undefined, problems: string[]): Array<{ host: string; port: number }> {
  if (raw === undefined) return [];
  const hosts: Array<{ host: string; port: number }> = [];
  for (const entry of raw
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)) {
    const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[3] === undefined ? 5432 : Number(m[3]);
    if (!m || port < 1 || port > 65535)
      problems.push(`LEDGER_DATABASE_HOSTS must be host:port entries separated by commas (got '${entry}')`);
    else hosts.push({ host: m[1] ?? m[2], port });
  }
  return hosts;
}

/** Reads and checks the template catalog file (a problem per defect; none → the empty catalog). */
function loadTemplateCatalog(file: string | undefined, cwd: string, problems: string[]): TemplateCatalog {
  if (file === undefined) return EMPTY_TEMPLATE_CATALOG;
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(path.resolve(cwd, file), 'utf8'));
  } catch (e) {
    problems.push(`LEDGER_TEMPLATE_CATALOG: cannot read ${file} as JSON (${(e as Error).message})`);
    return EMPTY_TEMPLATE_CATALOG;
  }
  const found = templateCatalogProblems(json);
  for (const p of found) problems.push(`LEDGER_TEMPLATE_CATALOG: ${p}`);
  return found.length ? EMPTY_TEMPLATE_CATALOG : (json as TemplateCatalog);
}

/** Reads and checks the bootstrap file: a problem per defect, each prefixed with the variable. */
function loadBootstrapFile(file: string | undefined, cwd: string, problems: string[]): BootstrapSpec | undefined {
  if (file === undefined) return undefined;
  const read = readBootstrapFile(path.resolve(cwd, file));
  for (const p of read.problems) problems.push(`LEDGER_BOOTSTRAP_FILE: ${p}`);
  return read.spec;
}
