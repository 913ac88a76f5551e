/**
 * The development `AmuletRules` configuration of the Canton Coin test ledgers (test/support/amulet-ledger.ts) and of
 * bench:engine's Amulet transfers: the Canton Coin profile's own (libs/domain canton-coin/dev-config.ts), so that tests,
 * benchmarks and the profile build the same state. No vitest, no service, so the bench can import it.
 */
export { devAmuletConfig } from '@ledgerline/domain';

export const micros = (seconds: number) => ({ microseconds: String(seconds * 1_000_000) });
