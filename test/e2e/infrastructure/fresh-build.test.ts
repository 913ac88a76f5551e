import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleBuild } from '../../support/fresh-build';

/** The end-to-end tier's global setup (test/support/build-setup.ts) rebuilds dist/ when it is stale. */
describe('this run', () => {
  it("found or made dist/ current in the tier's global setup, so the end-to-end tests run today's sources", () => {
    expect(staleBuild(path.resolve(__dirname, '../../..'))).toBeNull();
  });
});
