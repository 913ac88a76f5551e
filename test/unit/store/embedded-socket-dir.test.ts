import { describe, expect, it } from 'vitest';
import { socketDirFor } from '@ledgerline/store';

/** Where the embedded PostgreSQL's Unix socket goes, and when there is none (TCP only). */
describe('socketDirFor', () => {
  it('puts the socket in the data folder', () => {
    expect(socketDirFor('/srv/ledgerline/.ledgerline/pg', 54329, 'linux')).toBe('/srv/ledgerline/.ledgerline/pg');
    expect(socketDirFor('/Users/me/project/.ledgerline/pg', 54329, 'darwin')).toBe('/Users/me/project/.ledgerline/pg');
  });

  it('has none on Windows', () => {
    expect(socketDirFor('C:/ledgerline/pg', 54329, 'win32')).toBeNull();
  });

  it('has none where the socket path would be longer than the kernel takes', () => {
    const dir = '/' + 'd'.repeat(84); // + '/.s.PGSQL.54329' = 100 bytes: still fits
    expect(socketDirFor(dir, 54329, 'linux')).toBe(dir);
    expect(socketDirFor(dir + 'x', 54329, 'linux')).toBeNull();
    expect(socketDirFor('/' + 'é'.repeat(42) + 'x', 54329, 'linux')).toBeNull(); // bytes, not characters
  });

  it('has none for paths the comma-separated setting would not take as they are', () => {
    for (const dir of ['/data/a,b/pg', '/data/my data/pg', '/data/"q"/pg', "/data/it's/pg", '/data/back\\slash/pg']) {
      expect(socketDirFor(dir, 54329, 'linux')).toBeNull();
    }
  });
});
