import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@ledgerline/server/config';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, __dirname);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  return [];
};

describe('Canton Coin profile settings (LEDGER_CANTON_COIN, LEDGER_CANTON_COIN_DARS, LEDGER_CANTON_COIN_POLL_MS)', () => {
  it('is off by default, with no DARs and a one-second automation timer', () => {
    const c = loadConfig({}, '/app');
    expect([c.cantonCoin, c.cantonCoinDars, c.cantonCoinPollMs]).toEqual(['off', [], 1000]);
  });

  it('takes dev and DAR paths relative to the working directory', () => {
    const c = loadConfig(
      {
        LEDGER_CANTON_COIN: 'dev',
        LEDGER_CANTON_COIN_DARS: 'config.test.ts, rounds.test.ts',
        LEDGER_CANTON_COIN_POLL_MS: '50',
      },
      __dirname,
    );
    expect(c.cantonCoin).toBe('dev');
    expect(c.cantonCoinDars).toEqual([path.join(__dirname, 'config.test.ts'), path.join(__dirname, 'rounds.test.ts')]);
    expect(c.cantonCoinPollMs).toBe(50);
  });

  it('refuses another profile, a missing DAR, and DARs without the profile, one problem each', () => {
    expect(problemsOf({ LEDGER_CANTON_COIN: 'mainnet' })).toEqual([
      "LEDGER_CANTON_COIN must be off or dev (got 'mainnet')",
    ]);
    expect(problemsOf({ LEDGER_CANTON_COIN: 'dev', LEDGER_CANTON_COIN_DARS: 'nope.dar' })).toEqual([
      `LEDGER_CANTON_COIN_DARS: no such file ${path.join(__dirname, 'nope.dar')}`,
    ]);
    expect(problemsOf({ LEDGER_CANTON_COIN_DARS: 'config.test.ts' })).toEqual([
      'LEDGER_CANTON_COIN_DARS needs LEDGER_CANTON_COIN=dev',
    ]);
  });
});
