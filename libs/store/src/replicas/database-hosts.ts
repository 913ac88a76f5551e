import { Client, type ClientConfig } from 'pg';

export interface DatabaseHost {
  host: string;
  port: number;
}

type ConnectCallback = ((err: Error) => void) | ((err: null, c: Client) => void);

/** How long a search for the primary waits at least after the previous one (a burst of failures starts one search). */
const LOCATE_INTERVAL_MS = 200;

/**
 * The hosts that may hold the primary (LEDGER_DATABASE_HOSTS), for a failover manager that promotes a standby without a
 * virtual IP or proxy in front (node-postgres cannot follow a multi-host URL). The service connects to the first host
 * that answers and is not in recovery; a connection that fails, or reaches a host in recovery, starts a new search, so
 * requests during a switch fail fast as unavailable (503) and the service recovers on the promoted host without a
 * restart.
 */
export class DatabaseHosts {
  private current = 0;
  private searching: Promise<boolean> | null = null;
  private lastSearch = 0;

  constructor(
    private readonly baseUrl: string,
    readonly hosts: DatabaseHost[],
  ) {
    if (!hosts.length) throw new Error('DatabaseHosts needs at least one host');
  }

  /** The base URL (user, password, database, options) on the current primary's host and port. */
  url(): string {
    return this.urlOf(this.hosts[this.current]);
  }

  /** The host connections go to now. */
  get primary(): DatabaseHost {
    return this.hosts[this.current];
  }

  /**
   * Finds the first host, in list order, that answers and is not in recovery, and makes it the current one. False (the
   * current host unchanged) when none is. Searches run one at a time.
   */
  locate(): Promise<boolean> {
    this.searching ??= this.search().finally(() => {
      this.lastSearch = Date.now();
      this.searching = null;
    });
    return this.searching;
  }

  /** A connection failed or reached a standby: search again (at most one search per LOCATE_INTERVAL_MS). */
  suspect(): void {
    if (this.searching || Date.now() - this.lastSearch < LOCATE_INTERVAL_MS) return;
    this.locate().catch(() => undefined);
  }

  /** A pg Client class for the pool: connects to the current host, and only to a primary. */
  clientClass(): typeof Client {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const hosts = this;
    class PrimaryClient extends Client {
      constructor(config?: string | ClientConfig) {
        super({ ...(typeof config === 'string' ? {} : config), connectionString: hosts.url() });
      }

      override connect(): Promise<Client>;
      override connect(callback: ConnectCallback): void;
      override connect(callback?: ConnectCallback): Promise<Client> | void {
        const connected = (async () => {
          try {
            await super.connect();
          } catch (e) {
            hosts.suspect();
            throw e;
          }
          const { rows } = await super.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
          if (rows[0]?.standby) {
            hosts.suspect();
            await super.end().catch(() => undefined);
            // 57P03 (cannot connect now): the service answers it as unavailable, like a server starting up.
            throw Object.assign(
              new Error(
                `${hosts.primary.host}:${hosts.primary.port} is in recovery (a standby); looking for the primary`,
              ),
              { code: '57P03' },
            );
          }
          return this as Client;
        })();
        if (!callback) return connected;
        connected.then(
          (c) => (callback as (err: null, c: Client) => void)(null, c),
          (e: Error) => (callback as (err: Error) => void)(e),
        );
      }
    }
    return PrimaryClient;
  }

  private urlOf(h: DatabaseHost): string {
    const u = new URL(this.baseUrl);
    u.hostname = h.host.includes(':') ? `[${h.host}]` : h.host;
    u.port = String(h.port);
    return u.toString();
  }

  private async search(): Promise<boolean> {
    for (let i = 0; i < this.hosts.length; i++) {
      const client = new Client({ connectionString: this.urlOf(this.hosts[i]), connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        if (!rows[0].standby) {
          this.current = i;
          return true;
        }
      } catch {
        // not there: the next host
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    return false;
  }
}
