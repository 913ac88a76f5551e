import { describe, expect, it } from 'vitest';
import { validateUpdateId } from '@ledgerline/domain';
import { updateIdFor } from '@ledgerline/store';

/**
 * Fixed vectors: `1220` + SHA-256 over the UTF-8 bytes of participant, offset (decimal), record time and payload, joined by
 * NUL. The expected values were computed outside Node, with Python's hashlib over
 * '\0'.join([participant, str(offset), recordTime, payload]).encode('utf-8'), and the first two also with coreutils:
 *   printf '%s\0%s\0%s\0%s' participant1::1220ab 1 2026-11-23T18:44:02.371000Z '{"events":[]}' | sha256sum
 * An update id is stored with every update and handed to clients: a change here changes every id already given out.
 */
const vectors: Array<[participant: string, offset: number, recordTime: string, payload: string, id: string]> = [
  [
    'participant1::1220ab',
    1,
    '2026-11-23T18:44:02.371000Z',
    '{"events":[]}',
    '1220c2dec10932c36ac5ebcd9f054855753b52b98cb559b0c15b129d23ccc53d118a',
  ],
  [
    'p',
    9_007_199_254_740_991,
    '1970-01-01T00:00:00.000000Z',
    '',
    '12203adff776b5870152d44aeba16538b4154695d671764b3e965151e015bbf54a48',
  ],
  // Non-ASCII text in the participant and the payload, and JSON escapes kept as the text they are.
  [
    'ünï::1220',
    42,
    '2026-01-01T00:00:00.000001Z',
    '{"note":"héllo \\u0000 wörld 🎉","x":"\\ud800"}',
    '122006f67593844c3a9ae681c392d787dcb2391436ccccce12ad988c7929b37143ef',
  ],
];

describe('updateIdFor', () => {
  it.each(vectors)('%s @ %d', (participant, offset, recordTime, payload, id) => {
    expect(updateIdFor(participant, offset, recordTime, payload)).toBe(id);
  });

  it('gives ids the update endpoints accept', () => {
    for (const [participant, offset, recordTime, payload, id] of vectors)
      expect(validateUpdateId(updateIdFor(participant, offset, recordTime, payload))).toBe(id);
  });

  it('separates the fields: moving a character across a boundary changes the id', () => {
    expect(updateIdFor('p1', 2, 't', 'x')).not.toBe(updateIdFor('p', 12, 't', 'x'));
    expect(updateIdFor('p', 1, 't', 'x')).not.toBe(updateIdFor('p', 1, 'tx', ''));
  });
});
