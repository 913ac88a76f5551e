import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BOB } from './updates-scenario';

/**
 * A template catalog in which the scenario's Token template implements the token standard's Holding interface: the view
 * maps the create arguments (owner, amount) and names a fixed instrument.
 */
export const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';

export const tokenCatalog = {
  templates: {
    '#token-model:Token.Main:Token': {
      interfaces: {
        [HOLDING]: {
          view: {
            owner: 'owner',
            instrumentId: { admin: { $literal: BOB }, id: { $literal: 'TOK' } },
            amount: 'amount',
            lock: null,
            meta: { $literal: { values: {} } },
          },
        },
      },
    },
  },
};

/** The catalog written to a temporary file, for LEDGER_TEMPLATE_CATALOG. */
export function tokenCatalogFile(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'catalog.json');
  fs.writeFileSync(file, JSON.stringify(tokenCatalog));
  return file;
}
