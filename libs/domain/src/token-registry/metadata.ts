import { AMULET_INSTRUMENT_ID } from './amulet';
import { registryBadRequest, registryNotFound } from './errors';

/** Token standard API name → the minor version supported. */
export type SupportedApis = Record<string, number>;

export interface RegistryInfo {
  adminId: string;
  supportedApis: SupportedApis;
}

/** The metadata API's Instrument (the optional fields this registry fills). */
export interface Instrument {
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  supportedApis: SupportedApis;
}

export interface ListInstrumentsResponse {
  instruments: Instrument[];
  nextPageToken?: string;
}

export const METADATA_API = 'splice-api-token-metadata-v1';
export const HOLDING_API = 'splice-api-token-holding-v1';
export const TRANSFER_INSTRUCTION_API = 'splice-api-token-transfer-instruction-v1';
export const ALLOCATION_API = 'splice-api-token-allocation-v1';
export const ALLOCATION_INSTRUCTION_API = 'splice-api-token-allocation-instruction-v1';

/** Which registry a request addresses: Canton Coin's (its DSO the admin) or a configured admin's generic one. */
export type Registry = { kind: 'amulet'; admin: string } | { kind: 'token'; admin: string };

/**
 * The registry at the root (`admin` undefined): Canton Coin's if the ledger has a DSO (an active AmuletRules), else the
 * first configured one. For an admin: Canton Coin's for the DSO, the generic one for a configured admin, else 404.
 */
export function selectRegistry(admin: string | undefined, dso: string | null, configured: readonly string[]): Registry {
  if (admin === undefined) {
    if (dso) return { kind: 'amulet', admin: dso };
    if (configured[0]) return { kind: 'token', admin: configured[0] };
    throw registryNotFound(
      'This ledger serves no token registry: no AmuletRules is active and LEDGER_TOKEN_REGISTRIES names no admin.',
    );
  }
  if (admin === dso) return { kind: 'amulet', admin };
  if (configured.includes(admin)) return { kind: 'token', admin };
  throw registryNotFound(`No token registry is served for admin ${admin}.`);
}

/** The registry-wide APIs: the metadata API (the others are per instrument). */
export const registryInfo = (admin: string): RegistryInfo => ({ adminId: admin, supportedApis: { [METADATA_API]: 1 } });

/** Amulet with the configured display name and symbol, 10 decimals (Amulet amounts are Daml Decimals). */
export function amuletInstrument(names: { name: string; symbol: string }): Instrument {
  return {
    id: AMULET_INSTRUMENT_ID,
    name: names.name,
    symbol: names.symbol,
    decimals: 10,
    supportedApis: {
      [METADATA_API]: 1,
      [HOLDING_API]: 1,
      [TRANSFER_INSTRUCTION_API]: 1,
      [ALLOCATION_API]: 1,
      [ALLOCATION_INSTRUCTION_API]: 1,
    },
  };
}

/** `pageSize` as the query gives it: an integer from 1 (default 25). */
export function decodePageSize(raw: unknown): number {
  if (raw === undefined || raw === '') return 25;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw registryBadRequest(`pageSize must be a positive integer (got '${String(raw)}')`);
  return Number(raw);
}

/** One page of instruments in id order: those after `pageToken` (the last id of the previous page), `nextPageToken` when more follow. */
export function instrumentPage(
  instruments: readonly Instrument[],
  pageSize: number,
  pageToken: string | undefined,
): ListInstrumentsResponse {
  const sorted = [...instruments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rest = pageToken ? sorted.filter((i) => i.id > pageToken) : sorted;
  const page = rest.slice(0, pageSize);
  return rest.length > pageSize
    ? { instruments: page, nextPageToken: page[page.length - 1].id }
    : { instruments: page };
}

export function findInstrument(instruments: readonly Instrument[], id: string): Instrument {
  const found = instruments.find((i) => i.id === id);
  if (!found) throw registryNotFound(`No instrument with id ${id} found`);
  return found;
}
