import { parentPort } from 'node:worker_threads';
import { NO_INTERFACES, type TransactionForm, type UpdateFormat } from '@ledgerline/domain';
import { renderPageText, type StoredUpdateText } from './render-page';

/**
 * The rendering worker's side of PageRenderer: one request, one answer, in order. It renders formats without interface
 * filters only (views need the server's engine), so no template implements an interface here.
 */
parentPort?.on(
  'message',
  (m: { id: number; rows: StoredUpdateText[]; format: UpdateFormat; form: TransactionForm }) => {
    try {
      parentPort!.postMessage({ id: m.id, texts: renderPageText(m.rows, m.format, m.form, NO_INTERFACES) });
    } catch (e) {
      parentPort!.postMessage({ id: m.id, error: (e as Error).message ?? String(e) });
    }
  },
);
