import { describe, it } from 'vitest';
import { conformanceDars } from './dars';

/**
 * A suite of conformance tests over the real DARs and Canton outputs (LEDGERLINE_CONFORMANCE_DARS, see
 * `conformanceDars`): `body` gets the folder. Without the folder the suite is skipped with a loud banner outside CI, and
 * fails under CI=true (one failing test says why). Never a silent skip.
 */
export function describeWithDars(title: string, body: (darsRoot: string) => void): void {
  const dars = conformanceDars();
  describe.skipIf(!dars.present && !dars.required)(title, () => {
    if (!dars.present) {
      it('has the conformance folder', () => {
        throw new Error(dars.reason);
      });
      return;
    }
    body(dars.root);
  });
}
