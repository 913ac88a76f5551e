import {
  compileUpdateFormat,
  projectUpdate,
  type CompiledUpdateFormat,
  type InterfaceDirectory,
  type JsGetUpdatesResponse,
  type StoredUpdate,
  type TransactionForm,
  type UpdateFormat,
} from '@ledgerline/domain';

/** A stored update whose payload is still JSON text (as read with `payload::text`). */
export type StoredUpdateText = Omit<StoredUpdate, 'payload'> & { payload: string };

/** Compiled formats by directory, form and JSON text: a stream renders every page with the same format. */
const compiled = new WeakMap<InterfaceDirectory, Map<string, CompiledUpdateFormat>>();

function compiledFormat(
  format: UpdateFormat,
  form: TransactionForm,
  interfaces: InterfaceDirectory,
): CompiledUpdateFormat {
  let byText = compiled.get(interfaces);
  if (!byText) {
    byText = new Map();
    compiled.set(interfaces, byText);
  }
  const key = form + JSON.stringify(format);
  let c = byText.get(key);
  if (!c) {
    if (byText.size >= 256) byText.clear();
    c = compileUpdateFormat(format, interfaces, form);
    byText.set(key, c);
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
export function renderPageText(
  rows: readonly StoredUpdateText[],
  format: UpdateFormat,
  form: TransactionForm,
  interfaces: InterfaceDirectory,
): string[] {
  const parsed = rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
  return projectPage(parsed, compiledFormat(format, form, interfaces)).map((e) => JSON.stringify(e));
}
