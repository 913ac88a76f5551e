import { parentPort, workerData } from 'node:worker_threads';
import { useInterfaceCatalog, type TemplateCatalog, type TransactionForm, type UpdateFormat } from '@ledgerline/domain';
import { renderPageText, type StoredUpdateText } from './render-page';

/** The rendering worker's side of PageRenderer: one request, one answer, in order; the interfaces of the server's catalog. */
useInterfaceCatalog((workerData as { catalog?: TemplateCatalog } | null)?.catalog);

parentPort?.on('message', (m: { id: number; rows: StoredUpdateText[]; format: UpdateFormat; form: TransactionForm }) => {
  try {
    parentPort!.postMessage({ id: m.id, texts: renderPageText(m.rows, m.format, m.form) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error).message ?? String(e) });
  }
});
