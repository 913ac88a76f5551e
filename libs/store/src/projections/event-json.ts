import type { CommittedEvent } from '@ledgerline/domain';

const texts = new WeakMap<CommittedEvent, string>();

/** Remembers the JSON text of `event.data` that the writer already produced for the event log. */
export function rememberDataJson(event: CommittedEvent, text: string): void {
  texts.set(event, text);
}

/** The JSON text of `event.data`: the event log's own text when the writer made it (serialised once per event), else made now. */
export function dataJsonOf(event: CommittedEvent): string {
  return texts.get(event) ?? JSON.stringify(event.data);
}
