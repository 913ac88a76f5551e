import { parentPort } from 'node:worker_threads';
import type { UpdateFormat } from '@ledgerline/domain';
import { renderPageText, type StoredUpdateText } from './render-page';

/** The rendering worker's side of PageRenderer: one request, one answer, in order. */
parentPort?.on('message', (m: { id: number; rows: StoredUpdateText[]; format: UpdateFormat }) => {
  try {
    parentPort!.postMessage({ id: m.id, texts: renderPageText(m.rows, m.format) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error).message ?? String(e) });
  }
});
