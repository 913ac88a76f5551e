import { compileUpdateFormat, projectUpdate, type CompiledUpdateFormat, type StoredUpdate, type UpdateFormat } from '@ledgerline/domain';

/** A stored update whose payload is still JSON text (as read with `payload::text`). */
export type StoredUpdateText = Omit<StoredUpdate, 'payload'> & { payload: string };

/** Compiled formats by their JSON text: a stream renders every page with the same format. */
const compiled = new Map<string, CompiledUpdateFormat>();

function compiledFormat(format: UpdateFormat): CompiledUpdateFormat {
  const key = JSON.stringify(format);
  let c = compiled.get(key);
  if (!c) {
    if (compiled.size >= 256) compiled.clear();
    c = compileUpdateFormat(format);
    compiled.set(key, c);
  }
  return c;
}

/**
 * Renders a page for the WebSocket stream: each update as the JSON text of its JsGetUpdatesResponse, in page order,
 * leaving out updates with nothing visible to the format. Runs in the rendering worker (or in-thread when there is none);
 * the rules are the domain's projectUpdate.
 */
export function renderPageText(rows: readonly StoredUpdateText[], format: UpdateFormat): string[] {
  const f = compiledFormat(format);
  const out: string[] = [];
  for (const r of rows) {
    const e = projectUpdate({ ...r, payload: JSON.parse(r.payload) }, f);
    if (e) out.push(JSON.stringify(e));
  }
  return out;
}
