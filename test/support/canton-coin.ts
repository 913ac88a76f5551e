import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ScanProxyClient, ValidatorInternalClient } from '@canton-network/core-splice-client';
import type { TestLedger } from './ledger';

/**
 * Helpers for tests of the Canton Coin development profile (LEDGER_CANTON_COIN=dev): the profile's environment, the
 * wallet SDK's own clients of the Splice endpoints, and submissions as a party through the JSON API.
 */
export const AMULET_DAR = 'splice/splice-amulet-0.1.22.dar';
export const WALLET_DAR = 'splice/splice-wallet-0.1.23.dar';

/** The profile with its DARs from the conformance folder `root`, static time, and a fast automation timer. */
export function cantonCoinEnv(root: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LEDGER_CANTON_COIN: 'dev',
    LEDGER_CANTON_COIN_DARS: [AMULET_DAR, WALLET_DAR].map((d) => path.join(root, d)).join(','),
    LEDGER_TIME_MODE: 'static',
    LEDGER_CANTON_COIN_POLL_MS: '20',
    ...extra,
  };
}

const quietLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  trace() {},
  fatal() {},
  child() {
    return quietLogger;
  },
};

/** The SDK's clients of the validator API (`/api/validator`), with a token for `userId` (default: the admin). */
export async function sdkClients(ledger: TestLedger, userId?: string) {
  const token = await ledger.token(userId);
  const auth = { getAccessToken: async () => token } as never;
  const base = new URL(`${ledger.url}/api/validator`);
  return {
    scanProxy: new ScanProxyClient(base, quietLogger as never, auth),
    validator: new ValidatorInternalClient(base, quietLogger as never, auth),
  };
}

/** A contract as Splice's APIs render it, checked field by field against Splice's `Contract` schema. */
export function expectSpliceContract(c: any, entity: string): void {
  expect(Object.keys(c).sort()).toEqual(['contract_id', 'created_at', 'created_event_blob', 'payload', 'template_id']);
  expect(c.template_id).toMatch(new RegExp(`^[0-9a-f]{64}:${entity.replace(/\./g, '\\.')}$`));
  expect(c.contract_id).toMatch(/^00[0-9a-f]+$/);
  expect(typeof c.payload).toBe('object');
  expect(Buffer.from(c.created_event_blob, 'base64').length).toBeGreaterThan(0);
  expect(Number.isNaN(Date.parse(c.created_at))).toBe(false);
}

/** submit-and-wait-for-transaction as the admin user acting as `actAs`, with disclosed contracts. */
export async function submitAs(
  ledger: TestLedger,
  actAs: string[],
  commands: unknown[],
  disclosedContracts: unknown[] = [],
) {
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  return ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands: {
      commands,
      commandId: randomUUID(),
      userId: ledger.config.adminUser,
      actAs,
      readAs: [],
      synchronizerId: sync,
      disclosedContracts,
    },
    transactionFormat: {
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
    },
  });
}

/** A Splice contract wrapper as a disclosed contract of the JSON API. */
export const disclose = (
  c: { template_id: string; contract_id: string; created_event_blob: string },
  synchronizerId: string,
) => ({
  templateId: c.template_id,
  contractId: c.contract_id,
  createdEventBlob: c.created_event_blob,
  synchronizerId,
});

/** Allocates a local party and lets the admin user act as it. */
export async function allocateParty(ledger: TestLedger, hint: string): Promise<string> {
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const r = await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync });
  expect(r.status, r.text).toBe(200);
  const id = r.json.partyDetails.party as string;
  await grantReadAs(ledger, id);
  return id;
}

/** Lets the admin user act as (and so read as) `party`. */
export async function grantReadAs(ledger: TestLedger, party: string): Promise<void> {
  const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
    rights: [{ kind: { CanActAs: { value: { party } } } }],
  });
  expect(rights.status, rights.text).toBe(200);
}

/** The party's active contracts of one template (`#pkg:Module:Entity`), as created events. */
export async function activeOf(ledger: TestLedger, party: string, templateId: string): Promise<any[]> {
  const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
  const acs = await ledger.call('POST', '/v2/state/active-contracts', {
    activeAtOffset: end,
    eventFormat: {
      filtersByParty: {
        [party]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId } } } }] },
      },
      verbose: true,
    },
  });
  expect(acs.status, acs.text).toBe(200);
  return acs.json.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
}
