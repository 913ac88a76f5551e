import { ApiError } from '../api';
import {
  DamlValue,
  ErrorNote,
  Facts,
  Link,
  Loading,
  Parties,
  RawJson,
  time,
  useExplorer,
  useFocusHeading,
  useLoad,
} from '../components/common';
import { eventFormat, readersFor, shortTemplate, type ArchivedEvent, type CreatedEvent } from '../ledger';

interface EventsByContractId {
  created?: { createdEvent: CreatedEvent; synchronizerId: string } | null;
  archived?: { archivedEvent: ArchivedEvent; synchronizerId: string } | null;
}

/** A contract: its create and archive events (POST /v2/events/events-by-contract-id), its arguments readable. */
export function ContractView({ contractId }: { contractId: string }) {
  const { session } = useExplorer();
  const heading = useFocusHeading(contractId);
  const readers = readersFor(session.access);
  const loaded = useLoad(
    async (signal) => {
      if (!readers) return {};
      try {
        return await session.api.post<EventsByContractId>(
          '/v2/events/events-by-contract-id',
          { contractId, eventFormat: eventFormat(readers) },
          signal,
        );
      } catch (e) {
        // Unknown, or no event of it visible to the user's parties.
        if (e instanceof ApiError && e.code === 'CONTRACT_EVENTS_NOT_FOUND') return {};
        throw e;
      }
    },
    [contractId],
  );
  return (
    <section aria-labelledby="contract-title">
      <h1 id="contract-title" ref={heading} tabIndex={-1} class="break">
        Contract {contractId}
      </h1>
      {readers ? null : <ErrorNote>This user may read no party, so no contract is visible to it.</ErrorNote>}
      <Loading what="the contract's events" loaded={loaded}>
        {(r) => {
          const c = r.created?.createdEvent;
          const a = r.archived?.archivedEvent;
          if (!c && !a) return <p>No event of this contract is visible to you.</p>;
          return (
            <>
              <Facts
                rows={[
                  ['Status', a ? 'archived' : 'active'],
                  [
                    'Template',
                    c ? (
                      <span class="mono break">{c.templateId}</span>
                    ) : a ? (
                      <span class="mono break">{a.templateId}</span>
                    ) : null,
                  ],
                  [
                    'Created',
                    c ? <Link to={{ view: 'offset', offset: c.offset }}>{`at offset ${c.offset}`}</Link> : null,
                  ],
                  ['Created at', c ? time(c.createdAt) : null],
                  ['Created on', r.created?.synchronizerId],
                  [
                    'Archived',
                    a ? <Link to={{ view: 'offset', offset: a.offset }}>{`at offset ${a.offset}`}</Link> : null,
                  ],
                  ['Signatories', c ? <Parties parties={c.signatories} /> : null],
                  ['Observers', c ? <Parties parties={c.observers} /> : null],
                  ['Package', c?.packageName ?? a?.packageName],
                ]}
              />
              {c ? (
                <>
                  <h2>Create arguments of {shortTemplate(c.templateId)}</h2>
                  <DamlValue value={c.createArgument} />
                </>
              ) : null}
              <RawJson value={r} />
            </>
          );
        }}
      </Loading>
    </section>
  );
}
