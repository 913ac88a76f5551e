import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@ledgerline/server/config';
import { isRecoveryConflict } from '@ledgerline/store';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env, '/app');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  return [];
};
const DB = 'postgres://ledger@db1:5432/ledger';

describe('LEDGER_READ_DATABASE_URL, LEDGER_READ_REPLICA_WAIT_MS, LEDGER_DATABASE_HOSTS', () => {
  it('default to no replicas, a 500 ms wait and no host list', () => {
    const c = loadConfig({ DATABASE_URL: DB }, '/app');
    expect({ urls: c.readDatabaseUrls, wait: c.readReplicaWaitMs, hosts: c.databaseHosts }).toEqual({
      urls: [],
      wait: 500,
      hosts: [],
    });
  });

  it('take one or several replica URLs and host:port entries (port 5432 by default, [v6] addresses)', () => {
    const c = loadConfig(
      {
        DATABASE_URL: DB,
        LEDGER_READ_DATABASE_URL: 'postgres://r@replica1/ledger, postgresql://r@replica2:5433/ledger',
        LEDGER_READ_REPLICA_WAIT_MS: '2000',
        LEDGER_DATABASE_HOSTS: 'db1:5432,db2,[::1]:6543',
      },
      '/app',
    );
    expect(c.readDatabaseUrls).toEqual(['postgres://r@replica1/ledger', 'postgresql://r@replica2:5433/ledger']);
    expect(c.readReplicaWaitMs).toBe(2000);
    expect(c.databaseHosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6543 },
    ]);
  });

  it('refuse bad entries, and replicas or hosts without DATABASE_URL, one problem each', () => {
    expect(problems({ DATABASE_URL: DB, LEDGER_READ_DATABASE_URL: 'postgres://r@replica1/ledger,http://x' })).toEqual([
      "LEDGER_READ_DATABASE_URL must be postgres: URLs separated by commas: entry 2: its scheme is http: (got 'http://x')",
    ]);
    expect(problems({ DATABASE_URL: DB, LEDGER_DATABASE_HOSTS: 'db1:99999,db2:x' })).toEqual([
      "LEDGER_DATABASE_HOSTS must be host:port entries separated by commas (got 'db1:99999')",
      "LEDGER_DATABASE_HOSTS must be host:port entries separated by commas (got 'db2:x')",
    ]);
    expect(
      problems({ LEDGER_DATABASE_HOSTS: 'db1', LEDGER_READ_DATABASE_URL: 'postgres://r@replica1/ledger' }),
    ).toEqual([
      'LEDGER_DATABASE_HOSTS needs DATABASE_URL (its user, password, database and options)',
      'LEDGER_READ_DATABASE_URL needs DATABASE_URL (read replicas of an external PostgreSQL)',
    ]);
  });
});

describe('isRecoveryConflict', () => {
  it("is a standby's cancellation for a conflict with recovery, not any serialization failure", () => {
    expect(isRecoveryConflict({ code: '40001', message: 'canceling statement due to conflict with recovery' })).toBe(
      true,
    );
    expect(isRecoveryConflict({ code: '40P01', message: 'canceling statement due to conflict with recovery' })).toBe(
      true,
    );
    expect(isRecoveryConflict({ code: '40001', message: 'could not serialize access due to concurrent update' })).toBe(
      false,
    );
    expect(isRecoveryConflict(new Error('conflict with recovery'))).toBe(false);
  });
});
