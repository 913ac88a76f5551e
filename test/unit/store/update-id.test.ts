import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { updateIdFor } from '../../../libs/store/src';

describe('updateIdFor', () => {
  it('is 1220 + SHA-256 over participant, offset, record time and payload, NUL-separated, in UTF-8', () => {
    const cases: Array<[string, number, string, string]> = [
      ['participant1::1220ab', 1, '2026-11-23T18:44:02.371000Z', '{"events":[]}'],
      ['p', 9_007_199_254_740_991, '1970-01-01T00:00:00.000000Z', ''],
      ['ünï::1220', 42, '2026-01-01T00:00:00.000001Z', '{"note":"héllo \\u0000 wörld 🎉","x":"\\ud800"}'],
    ];
    for (const [participant, offset, recordTime, payload] of cases) {
      const reference = createHash('sha256').update(participant).update('\u0000').update(String(offset)).update('\u0000').update(recordTime).update('\u0000').update(payload).digest('hex');
      expect(updateIdFor(participant, offset, recordTime, payload)).toBe('1220' + reference);
    }
  });
});
