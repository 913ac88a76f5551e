import type { CommittedEvent } from '@ledgerline/domain';
import { SameAs } from './projection';

const texts = new WeakMap<CommittedEvent, string>();

/** Remembers the JSON text of `event.data` that the writer already produced for the event log. */
export function rememberDataJson(event: CommittedEvent, text: string): void {
  texts.set(event, text);
}

/** The JSON text of `event.data`: the event log's own text when the writer made it (serialised once per event), else made now. */
export function dataJsonOf(event: CommittedEvent): string {
  return texts.get(event) ?? JSON.stringify(event.data);
}

/**
 * `event.data` as the value of a projection's json column that repeats it: taken from the event log's row inside the
 * writer's statement when both are written together (sent and parsed once), else written from the text.
 */
export function eventLogData(event: CommittedEvent): SameAs {
  return new SameAs(dataJsonOf(event), 'event_log', 'seq', event.seq, 'data');
}

/**
 * A part of `event.data` (at `path`, e.g. one created event of a transaction) as the value of a projection's json column:
 * extracted from the event log's row inside the writer's statement when both are written together, else `text()`.
 */
export function eventLogDataAt(event: CommittedEvent, path: readonly string[], text: () => string): SameAs {
  return new SameAs(text, 'event_log', 'seq', event.seq, 'data', path);
}
