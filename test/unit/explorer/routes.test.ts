import { describe, expect, it } from 'vitest';
import { EXPLORER_VIEWS } from '@ledgerline/server/http/explorer';
import { explorerUrl } from '@ledgerline/server/infrastructure/explorer-link';
import { hrefOf, parseRoute, routeForQuery, VIEW_SEGMENTS, type Route } from '../../../apps/explorer/src/routes';

const PARTY = `alice::1220${'ab'.repeat(32)}`;
const CONTRACT = `00${'cd'.repeat(32)}ca11`;

describe('explorer routes', () => {
  it('give every place its own URL and read it back (deep links, reloads)', () => {
    const places: Route[] = [
      { view: 'live' },
      { view: 'live', party: PARTY },
      { view: 'update', updateId: `1220${'ef'.repeat(32)}` },
      { view: 'offset', offset: 42 },
      { view: 'parties' },
      { view: 'party', party: PARTY },
      { view: 'contract', contractId: CONTRACT },
      { view: 'users' },
      { view: 'user', userId: 'alice@example.com' },
      { view: 'synchronizers' },
      { view: 'completions', userId: 'alice-app' },
    ];
    for (const place of places) {
      const url = new URL(hrefOf(place), 'http://localhost');
      expect(parseRoute(url.pathname, url.search), hrefOf(place)).toEqual(place);
    }
    expect(hrefOf({ view: 'party', party: PARTY })).toBe(`/explorer/parties/alice%3A%3A1220${'ab'.repeat(32)}`);
  });

  it('are served by the server: the first segments it answers with the page are the router’s', () => {
    expect([...VIEW_SEGMENTS].sort()).toEqual([...EXPLORER_VIEWS].sort());
  });

  it('name a place for what nothing serves, and for malformed paths', () => {
    expect(parseRoute('/explorer/nothing')).toEqual({ view: 'not-found', path: '/explorer/nothing' });
    expect(parseRoute('/explorer/offsets/0').view).toBe('not-found');
    expect(parseRoute('/explorer/offsets/x').view).toBe('not-found');
    expect(parseRoute('/explorer/parties/%E0%A4%A').view).toBe('not-found');
    expect(parseRoute('/elsewhere').view).toBe('not-found');
    expect(parseRoute('/explorer/users/u/completions')).toEqual({ view: 'completions', userId: 'u' });
  });

  it('send what is typed in the go-to box to the place it names', () => {
    expect(routeForQuery(' 17 ')).toEqual({ view: 'offset', offset: 17 });
    expect(routeForQuery(PARTY)).toEqual({ view: 'party', party: PARTY });
    expect(routeForQuery(CONTRACT)).toEqual({ view: 'contract', contractId: CONTRACT });
    expect(routeForQuery('1220abcd')).toEqual({ view: 'update', updateId: '1220abcd' });
    expect(routeForQuery('   ')).toBeNull();
  });

  it('announce the page at an address a browser on this machine opens', () => {
    expect(explorerUrl('0.0.0.0', 7575)).toBe('http://localhost:7575/explorer');
    expect(explorerUrl('::', 7575)).toBe('http://localhost:7575/explorer');
    expect(explorerUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080/explorer');
    expect(explorerUrl('::1', 8080)).toBe('http://[::1]:8080/explorer');
  });
});
