import { parentPort, workerData } from 'node:worker_threads';
import { useInterfaceCatalog, type TemplateCatalog, type UpdateFormat } from '@ledgerline/domain';
import { renderPageText, type StoredUpdateText } from './render-page';

/** The rendering worker's side of PageRenderer: one request, one answer, in order; the interfaces of the server's catalog. */
useInterfaceCatalog((workerData as { catalog?: TemplateCatalog } | null)?.catalog);

parentPort?.on('message', (m: { id: number; rows: StoredUpdateText[]; format: UpdateFormat }) => {
  try {
    parentPort!.postMessage({ id: m.id, texts: renderPageText(m.rows, m.format) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error).message ?? String(e) });
  }
});
