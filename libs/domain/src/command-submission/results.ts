import { compileEventFormat } from '../updates/event-filter';
import { NO_INTERFACES, type InterfaceDirectory } from '../updates/interface-views';
import type { Filters, TransactionFormat } from '../updates/format';
import { renderTransaction, type StoredUpdate } from '../updates/projection';

const wildcard = (): Filters => ({
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
});

/**
 * The format of a submission's transaction when the request names none (Canton's ApiCommandService): ACS_DELTA, a
 * template wildcard for each of `parties`, verbose.
 */
export function defaultTransactionFormat(parties: readonly string[]): TransactionFormat {
  return {
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    eventFormat: {
      filtersByParty: Object.fromEntries(parties.map((p) => [p, wildcard()])),
      filtersForAnyParty: null,
      verbose: true,
    },
  };
}

/**
 * A submission's own transaction in a (validated) format, as Canton's CommandServiceImpl answers it: what
 * transaction-by-id gives for that format — or, when the format leaves no event, the transaction's header with
 * `events: []` (its header as a party-wildcard LEDGER_EFFECTS read shows it). Interface filters match (and views come
 * from) `interfaces`.
 */
export function renderSubmittedTransaction(u: StoredUpdate, format: TransactionFormat, interfaces: InterfaceDirectory) {
  const shape = format.transactionShape === 'TRANSACTION_SHAPE_LEDGER_EFFECTS' ? 'LEDGER_EFFECTS' : 'ACS_DELTA';
  const rendered = renderTransaction(u, compileEventFormat(format.eventFormat ?? {}, interfaces), shape);
  if (rendered) return rendered;
  const header = renderTransaction(
    u,
    compileEventFormat({ filtersForAnyParty: wildcard(), verbose: true }, NO_INTERFACES),
    'LEDGER_EFFECTS',
    { keepEmpty: true },
  )!;
  return { ...header, events: [] };
}

/**
 * The deprecated JsTransactionTree (submit-and-wait-for-transaction-tree): LEDGER_EFFECTS, a wildcard for each actAs
 * party, verbose; events keyed by node id.
 */
export function renderSubmittedTransactionTree(u: StoredUpdate, actAs: readonly string[]) {
  const format = defaultTransactionFormat(actAs);
  // Template wildcards only: no interface filter to match.
  const tx = renderSubmittedTransaction(
    u,
    { ...format, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
    NO_INTERFACES,
  );
  const eventsById: Record<string, unknown> = {};
  for (const e of tx.events as Array<Record<string, { nodeId: number }>>) {
    if ('CreatedEvent' in e)
      eventsById[String(e.CreatedEvent.nodeId)] = { CreatedTreeEvent: { value: e.CreatedEvent } };
    else if ('ExercisedEvent' in e)
      eventsById[String(e.ExercisedEvent.nodeId)] = { ExercisedTreeEvent: { value: e.ExercisedEvent } };
  }
  return {
    updateId: tx.updateId,
    commandId: tx.commandId,
    workflowId: tx.workflowId,
    effectiveAt: tx.effectiveAt,
    offset: tx.offset,
    eventsById,
    synchronizerId: tx.synchronizerId,
    traceContext: tx.traceContext,
    recordTime: tx.recordTime,
  };
}
