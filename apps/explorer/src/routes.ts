/**
 * The explorer's places and their URLs (under /explorer): every update, party, contract, user and list has its own
 * path, so a link can be shared and a reload stays where it was. Pure string work (unit-tested without a browser).
 */
export const BASE = '/explorer';

/** First path segments the server answers with the page (anything else under /explorer is a 404, as for any path). */
export const VIEW_SEGMENTS = [
  'updates',
  'offsets',
  'parties',
  'contracts',
  'users',
  'synchronizers',
  'completions',
] as const;

export type Route =
  | { view: 'live'; party?: string }
  | { view: 'update'; updateId: string }
  | { view: 'offset'; offset: number }
  | { view: 'parties' }
  | { view: 'party'; party: string }
  | { view: 'contract'; contractId: string }
  | { view: 'users' }
  | { view: 'user'; userId: string }
  | { view: 'synchronizers' }
  | { view: 'completions'; userId: string }
  | { view: 'not-found'; path: string };

const decode = (segment: string): string | null => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

export function parseRoute(pathname: string, search = ''): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : null;
  const raw = rest === null ? null : rest.split('/').filter((s) => s !== '');
  const parts = raw?.map(decode);
  if (!parts || parts.some((p) => p === null)) return { view: 'not-found', path: pathname };
  const [kind, id, more] = parts as string[];
  if (parts.length === 0) {
    const party = new URLSearchParams(search).get('party');
    return party ? { view: 'live', party } : { view: 'live' };
  }
  if (parts.length === 1) {
    if (kind === 'parties') return { view: 'parties' };
    if (kind === 'users') return { view: 'users' };
    if (kind === 'synchronizers') return { view: 'synchronizers' };
  }
  if (parts.length === 2) {
    if (kind === 'updates') return { view: 'update', updateId: id };
    if (kind === 'offsets' && /^[1-9]\d{0,17}$/.test(id)) return { view: 'offset', offset: Number(id) };
    if (kind === 'parties') return { view: 'party', party: id };
    if (kind === 'contracts') return { view: 'contract', contractId: id };
    if (kind === 'users') return { view: 'user', userId: id };
    if (kind === 'completions') return { view: 'completions', userId: id };
  }
  if (parts.length === 3 && kind === 'users' && more === 'completions') return { view: 'completions', userId: id };
  return { view: 'not-found', path: pathname };
}

export function hrefOf(route: Route): string {
  const e = encodeURIComponent;
  switch (route.view) {
    case 'live':
      return route.party ? `${BASE}?party=${e(route.party)}` : BASE;
    case 'update':
      return `${BASE}/updates/${e(route.updateId)}`;
    case 'offset':
      return `${BASE}/offsets/${route.offset}`;
    case 'parties':
      return `${BASE}/parties`;
    case 'party':
      return `${BASE}/parties/${e(route.party)}`;
    case 'contract':
      return `${BASE}/contracts/${e(route.contractId)}`;
    case 'users':
      return `${BASE}/users`;
    case 'user':
      return `${BASE}/users/${e(route.userId)}`;
    case 'synchronizers':
      return `${BASE}/synchronizers`;
    case 'completions':
      return `${BASE}/completions/${e(route.userId)}`;
    case 'not-found':
      return route.path;
  }
}

/**
 * Where the "go to" box leads for what was typed: an offset (digits), a party (`hint::fingerprint`), a contract id
 * (hex starting with 00, at least 66 characters) or else an update id.
 */
export function routeForQuery(text: string): Route | null {
  const q = text.trim();
  if (q === '') return null;
  if (/^[1-9]\d{0,17}$/.test(q)) return { view: 'offset', offset: Number(q) };
  if (/^[^:\s]+::[0-9a-f]{4,}$/i.test(q)) return { view: 'party', party: q };
  if (/^00[0-9a-f]{64,}$/i.test(q)) return { view: 'contract', contractId: q };
  return { view: 'update', updateId: q };
}
