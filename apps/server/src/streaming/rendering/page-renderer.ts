import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { NO_INTERFACES, type InterfaceDirectory, type TransactionForm, type UpdateFormat } from '@ledgerline/domain';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { renderPageText, type StoredUpdateText } from './render-page';

/**
 * The compiled worker script. Running from dist/ it sits next to this file; running from the TypeScript sources (the
 * test suite, after `npm test` has built dist/) it is the built copy under dist/.
 */
function workerScript(): string | null {
  const here = path.join(__dirname, 'render-worker.js');
  if (__filename.endsWith('.js')) return fs.existsSync(here) ? here : null;
  const root = path.resolve(__dirname, '../../../../..');
  const built = path.join(root, 'dist', path.relative(root, __dirname), 'render-worker.js');
  return fs.existsSync(built) ? built : null;
}

interface Pending {
  rows: StoredUpdateText[];
  format: UpdateFormat;
  form: TransactionForm;
  resolve(texts: string[]): void;
  reject(e: unknown): void;
}

/**
 * Renders WebSocket pages (payload JSON text → JsGetUpdatesResponse JSON text) on a worker thread, so that parsing and
 * serializing, about half of a streamed update's cost, leave the event loop that serves requests and frames messages:
 * with the page read ahead, the worker renders page n+1 while the loop sends page n. Without the worker script (or
 * after the worker died) pages are rendered in-thread with the same function; the result is the same text. Formats with
 * interface filters render in-thread too: their views are evaluated by the server's engine.
 */
@Injectable()
export class PageRenderer implements OnModuleDestroy {
  private worker: Worker | null = null;
  private failed = false;
  private closing = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly runtime: LedgerRuntime) {}

  /** Whether pages currently go to the worker thread. */
  get threaded(): boolean {
    return this.ensureWorker() !== null;
  }

  render(
    rows: StoredUpdateText[],
    format: UpdateFormat,
    form: TransactionForm,
    interfaces: InterfaceDirectory,
  ): Promise<string[]> {
    const worker = rows.length > 0 && interfaces === NO_INTERFACES ? this.ensureWorker() : null;
    if (!worker) {
      try {
        return Promise.resolve(renderPageText(rows, format, form, interfaces));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    const id = this.nextId++;
    return new Promise<string[]>((resolve, reject) => {
      this.pending.set(id, { rows, format, form, resolve, reject });
      worker.postMessage({ id, rows, format, form });
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    if (this.worker) await this.worker.terminate();
    this.failed = true;
  }

  private ensureWorker(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    const script = this.runtime.config.wsRenderWorker ? workerScript() : null;
    if (!script) {
      this.failed = true;
      return null;
    }
    // A small young generation: the worker's garbage is per page and short-lived; V8's default would let its heap
    // grow by tens of MB that the server's memory budget (docs/benchmarks.md: < 300 MB resident) does not have.
    const w = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 12 } });
    w.unref();
    w.on('message', (m: { id: number; texts?: string[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.texts) p.resolve(m.texts);
      else p.reject(new Error(m.error ?? 'rendering failed'));
    });
    // A worker that stops (it should not) costs nothing but speed: its pages and all later ones render in-thread.
    const fail = (e: Error) => {
      if (this.worker !== w) return;
      this.worker = null;
      this.failed = true;
      if (!this.closing)
        this.runtime.logger.error(
          { reason: e.message },
          'page rendering worker stopped; rendering in-thread from now on',
        );
      const pending = [...this.pending.values()];
      this.pending.clear();
      for (const p of pending) {
        try {
          p.resolve(renderPageText(p.rows, p.format, p.form, NO_INTERFACES));
        } catch (err) {
          p.reject(err);
        }
      }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`rendering worker exited with code ${code}`)));
    this.worker = w;
    return w;
  }
}
