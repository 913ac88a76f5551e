import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from '@ledgerline/server/config';

describe('boolean settings (LEDGER_WS_RENDER_WORKER)', () => {
  it('defaults to true, accepts true and false, and refuses anything else with one clear problem', () => {
    expect(loadConfig({}, '/app').wsRenderWorker).toBe(true);
    expect(loadConfig({ LEDGER_WS_RENDER_WORKER: 'false' }, '/app').wsRenderWorker).toBe(false);
    expect(loadConfig({ LEDGER_WS_RENDER_WORKER: 'true' }, '/app').wsRenderWorker).toBe(true);
    try {
      loadConfig({ LEDGER_WS_RENDER_WORKER: 'no' }, '/app');
      expect.unreachable('a bad value must stop the configuration');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual(["LEDGER_WS_RENDER_WORKER must be true or false (got 'no')"]);
    }
  });
});

describe('LEDGER_ED25519_BACKEND', () => {
  it('accepts libsodium and openssl (or unset) and refuses anything else with one clear problem', () => {
    expect(loadConfig({}, '/app').ed25519Backend).toBe('libsodium');
    expect(loadConfig({ LEDGER_ED25519_BACKEND: 'libsodium' }, '/app').ed25519Backend).toBe('libsodium');
    expect(loadConfig({ LEDGER_ED25519_BACKEND: 'openssl' }, '/app').ed25519Backend).toBe('openssl');
    try {
      loadConfig({ LEDGER_ED25519_BACKEND: 'sodium' }, '/app');
      expect.unreachable('a bad value must stop the configuration');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual([
        "LEDGER_ED25519_BACKEND must be one of libsodium,openssl (got 'sodium')",
      ]);
    }
  });
});

describe('LEDGER_WORKERS', () => {
  it('defaults to one process, takes 1…64 or auto (one per core), and refuses anything else with one clear problem', () => {
    expect(loadConfig({}, '/app').workers).toBe(1);
    expect(loadConfig({ LEDGER_WORKERS: '3' }, '/app').workers).toBe(3);
    expect(loadConfig({ LEDGER_WORKERS: 'auto' }, '/app').workers).toBe(Math.min(64, availableParallelism()));
    for (const bad of ['0', '65', 'two', '1.5']) {
      try {
        loadConfig({ LEDGER_WORKERS: bad }, '/app');
        expect.unreachable(`LEDGER_WORKERS=${bad} must stop the configuration`);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).problems).toEqual([
          `LEDGER_WORKERS must be auto or an integer between 1 and 64 (got '${bad}')`,
        ]);
      }
    }
  });
});

describe('interpretation limits (LEDGER_INTERPRETATION_TIMEOUT_MS, LEDGER_INTERPRETATION_MAX_STEPS)', () => {
  it('the time limit defaults to the ledger time tolerance; both take positive integers only', () => {
    expect(loadConfig({}, '/app')).toMatchObject({
      interpretationTimeoutMs: 60_000,
      interpretationMaxSteps: 50_000_000,
    });
    expect(loadConfig({ LEDGER_TIME_TOLERANCE_SECONDS: '90' }, '/app').interpretationTimeoutMs).toBe(90_000);
    expect(
      loadConfig({ LEDGER_TIME_TOLERANCE_SECONDS: '90', LEDGER_INTERPRETATION_TIMEOUT_MS: '250' }, '/app')
        .interpretationTimeoutMs,
    ).toBe(250);
    expect(loadConfig({ LEDGER_INTERPRETATION_MAX_STEPS: '1000' }, '/app').interpretationMaxSteps).toBe(1000);
    for (const [k, bad] of [
      ['LEDGER_INTERPRETATION_TIMEOUT_MS', '0'],
      ['LEDGER_INTERPRETATION_MAX_STEPS', 'many'],
    ]) {
      try {
        loadConfig({ [k]: bad }, '/app');
        expect.unreachable('a bad value must stop the configuration');
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).problems).toEqual([
          expect.stringMatching(new RegExp(`^${k} must be an integer between 1 and `)),
        ]);
      }
    }
  });
});

describe('LEDGER_TOKEN_REGISTRIES, LEDGER_AMULET_NAME, LEDGER_AMULET_SYMBOL', () => {
  const issuer = `issuer::1220${'a'.repeat(64)}`;
  const other = `other::1220${'b'.repeat(64)}`;
  it('takes party ids separated by commas, each once; Canton Coin is named Amulet (AMT) unless set', () => {
    expect(loadConfig({}, '/app')).toMatchObject({
      tokenRegistries: [],
      amuletInstrumentNames: { name: 'Amulet', symbol: 'AMT' },
    });
    expect(loadConfig({ LEDGER_TOKEN_REGISTRIES: ` ${issuer}, ${other} ` }, '/app').tokenRegistries).toEqual([
      issuer,
      other,
    ]);
    expect(
      loadConfig({ LEDGER_AMULET_NAME: 'Canton Coin', LEDGER_AMULET_SYMBOL: 'CC' }, '/app').amuletInstrumentNames,
    ).toEqual({ name: 'Canton Coin', symbol: 'CC' });
    for (const [raw, problem] of [
      ['issuer', "LEDGER_TOKEN_REGISTRIES must be party ids (<hint>::<namespace>) separated by commas (got 'issuer')"],
      [`${issuer},${issuer}`, 'LEDGER_TOKEN_REGISTRIES names a party twice'],
    ]) {
      try {
        loadConfig({ LEDGER_TOKEN_REGISTRIES: raw }, '/app');
        expect.unreachable('a bad value must stop the configuration');
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).problems).toEqual([problem]);
      }
    }
  });
});
