import { describe, expect, it } from 'vitest';
import { withoutEmptySegments } from '@ledgerline/server/http/framework-errors';

describe('withoutEmptySegments (rewriteUrl)', () => {
  it('drops the empty segments of the path: doubled slashes and a trailing slash', () => {
    expect(withoutEmptySegments('//v2/updates')).toBe('/v2/updates');
    expect(withoutEmptySegments('/v2//updates/')).toBe('/v2/updates');
    expect(withoutEmptySegments('/v2/updates/')).toBe('/v2/updates');
    expect(withoutEmptySegments('/v2/updates/?a=b')).toBe('/v2/updates?a=b');
    expect(withoutEmptySegments('///')).toBe('/');
    expect(withoutEmptySegments('http://host//v2/updates/?x=1')).toBe('http://host/v2/updates?x=1');
  });

  it('leaves every other target as it is, the query string included', () => {
    for (const url of [
      '/',
      '/v2/updates',
      '/v2/updates?x=a//b',
      '/v2/updates?x=/',
      '/v2/updates?',
      'http://host',
      'http://host/v2/updates?x=a//b',
      '*',
    ]) {
      expect(withoutEmptySegments(url), url).toBe(url);
    }
  });
});
