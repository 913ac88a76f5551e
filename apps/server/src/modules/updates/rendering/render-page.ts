import {
  compileUpdateFormat,
  projectUpdate,
  type CompiledUpdateFormat,
  type JsGetUpdatesResponse,
  type StoredUpdate,
  type TransactionForm,
  type UpdateFormat,
} from '@ledgerline/domain';

/** A stored update whose payload is still JSON text (as read with `payload::text`). */
export type StoredUpdateText = Omit<StoredUpdate, 'payload'> & { payload: string };

/** Compiled formats by form and JSON text: a stream renders every page with the same format. */
const compiled = new Map<string, CompiledUpdateFormat>();

function compiledFormat(format: UpdateFormat, form: TransactionForm): CompiledUpdateFormat {
  const key = form + JSON.stringify(format);
  let c = compiled.get(key);
  if (!c) {
    if (compiled.size >= 256) compiled.clear();
    c = compileUpdateFormat(format, form);
    compiled.set(key, c);
  }
  return c;
}

/** A page's stream elements, in page order, leaving out updates with nothing visible to the format. */
export function projectPage(rows: readonly StoredUpdate[], format: CompiledUpdateFormat): JsGetUpdatesResponse[] {
  const out: JsGetUpdatesResponse[] = [];
  for (const r of rows) {
    const e = projectUpdate(r, format);
    if (e) out.push(e);
  }
  return out;
}

/**
 * Renders a page for the WebSocket stream: each update as the JSON text of its JsGetUpdatesResponse, in page order,
 * leaving out updates with nothing visible to the format. Runs in the rendering worker (or in-thread when there is none);
 * the rules are the domain's projectUpdate.
 */
export function renderPageText(rows: readonly StoredUpdateText[], format: UpdateFormat, form: TransactionForm = 'flat'): string[] {
  const parsed = rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
  return projectPage(parsed, compiledFormat(format, form)).map((e) => JSON.stringify(e));
}
