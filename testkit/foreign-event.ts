import type { NewEvent, NewLedgerEvent } from '@ledgerline/domain';

/**
 * An event of a type outside the log's `LedgerEvent` union, for tests and benchmarks of the writer alone: the writer
 * stores it and only the ledger-updates projection sees it (that projection takes every event with an update header).
 * The service cannot append one (`append` and `Decision.events` take `NewLedgerEvent`s); this is the one place that
 * says otherwise.
 */
export const foreignEvent = <T extends string, D>(event: NewEvent<T, D>): NewLedgerEvent =>
  event as unknown as NewLedgerEvent;
