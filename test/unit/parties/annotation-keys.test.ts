import { describe, expect, it } from 'vitest';
import { annotationKeyProblem, isLedgerError, validateRequestAnnotations } from '@ledgerline/domain';

/** Canton's own patterns (ResourceAnnotationValidator.scala), used here only as the oracle for short keys. */
const NAME = /^([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+$/;
const PREFIX = /^(([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+[.])*([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+$/;

function oracleValid(key: string): boolean {
  // Java's split drops trailing empty strings.
  const parts = key.split('/');
  if (key !== '') while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 2) return false;
  const [prefix, name] = parts.length === 2 ? parts : [null, parts[0]];
  if (prefix !== null && (prefix.length > 253 || !PREFIX.test(prefix))) return false;
  return name.length <= 63 && NAME.test(name);
}

function problemOf(annotations: Record<string, string>, allowEmptyValues = true): string | null {
  try {
    validateRequestAnnotations(annotations, { field: 'f', allowEmptyValues });
    return null;
  } catch (e) {
    if (!isLedgerError(e)) throw e;
    return e.causeText;
  }
}

describe('annotation keys (Canton ResourceAnnotationValidationsSpec)', () => {
  it('names: valid and invalid characters, positions and lengths', () => {
    for (const ok of [
      'a',
      'Z',
      '7',
      'aA._-b',
      'abcdefghijklmnopqrstuvwxyz.-_ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      'some-key.like_this',
      'a'.repeat(63),
    ]) {
      expect(annotationKeyProblem(ok), ok).toBeNull();
    }
    for (const bad of ['', '&', '%', 'a'.repeat(64), '.aaa', 'aaa_', 'aaa-'])
      expect(annotationKeyProblem(bad), bad).not.toBeNull();
  });

  it('prefixes: DNS subdomains of at most 253 characters', () => {
    for (const ok of [
      'aaa/a',
      'AAA/a',
      'aaa-bbb/a',
      'aaa-bbb.ccc-ddd/a',
      '00.11.AA-bBb.ccc2/a',
      'aa--aa/a',
      `${'a'.repeat(253)}/a`,
    ]) {
      expect(annotationKeyProblem(ok), ok).toBeNull();
    }
    for (const bad of [
      '.user.management.daml/foo_',
      'aaa./a',
      '.aaa/a',
      '-aaa/a',
      'aaa-/a',
      'aa..aa/a',
      `${'a'.repeat(254)}/a`,
    ]) {
      expect(annotationKeyProblem(bad), bad).not.toBeNull();
    }
  });

  it("splits like Java: a trailing slash is dropped, '/' alone has no segment", () => {
    expect(annotationKeyProblem('a/')).toBeNull();
    expect(annotationKeyProblem('p/a//')).toBeNull();
    expect(annotationKeyProblem('/a')).toBe("Key prefix segment '' has invalid syntax");
    expect(annotationKeyProblem('/')).toBe("Key '/' contains more than one forward slash ('/') character");
  });

  it('messages quote long keys as Canton does (50 characters and ...)', () => {
    const long = 'b'.repeat(64);
    expect(annotationKeyProblem(long)).toBe(
      `Key name segment '${'b'.repeat(50)}...' exceeds maximum length of 63 characters`,
    );
    expect(problemOf({ [long.slice(0, 55)]: '' }, false)).toBe(
      `The submitted request has invalid arguments: The value of an annotation is empty for key: '${'b'.repeat(50)}...'`,
    );
  });

  it('every key is checked before any value (Canton order)', () => {
    expect(problemOf({ ok: '', 'bad key': 'v' }, false)).toBe(
      "The submitted request has invalid arguments: Key name segment 'bad key' has invalid syntax",
    );
  });

  it('agrees with Canton patterns on every key over a small alphabet up to length 6', () => {
    const alphabet = ['a', '0', '.', '-', '_', '/', '!'];
    let keys = [''];
    let checked = 0;
    for (let len = 0; len <= 6; len++) {
      for (const k of keys) {
        expect(annotationKeyProblem(k) === null, JSON.stringify(k)).toBe(oracleValid(k));
        checked++;
      }
      keys = keys.flatMap((k) => alphabet.map((c) => k + c));
    }
    expect(checked).toBeGreaterThan(100_000);
  });

  it('near-miss keys take linear time (the backtracking pattern needed seconds for 13 segments)', () => {
    // `aaa.` × n + `!/x`: each extra segment multiplied a backtracking matcher's work by 4.
    const keys = Array.from({ length: 200 }, (_, i) => `${'aaa.'.repeat(13 + (i % 50))}!/x`.slice(-253 - 2));
    const started = performance.now();
    for (const k of keys) expect(annotationKeyProblem(k)).toMatch(/has invalid syntax|exceeds maximum length/);
    // Bounded wait: 200 keys of ≤ 255 characters; a linear scan needs microseconds each.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
