import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api';
import {
  ContractLink,
  ErrorNote,
  Facts,
  Link,
  Loading,
  Parties,
  Table,
  useExplorer,
  useFocusHeading,
  useLoad,
} from '../components/common';
import { eventFormat, shortTemplate, updateFormat, updateOf, type CreatedEvent, type LedgerUpdate } from '../ledger';
import { UpdateRow } from './live';

const PAGE = 25;

interface PartyDetails {
  party: string;
  isLocal: boolean;
  identityProviderId: string;
  localMetadata?: { resourceVersion: string; annotations: Record<string, string> };
}

export function PartyView({ party }: { party: string }) {
  const { session } = useExplorer();
  const heading = useFocusHeading(party);
  const details = useLoad(
    async (signal) =>
      (await session.api.get<{ partyDetails: PartyDetails[] }>(`/v2/parties/${encodeURIComponent(party)}`, signal))
        .partyDetails[0] ?? null,
    [party],
  );
  return (
    <section aria-labelledby="party-title">
      <h1 id="party-title" ref={heading} tabIndex={-1} class="break">
        Party {party}
      </h1>
      <p>
        <Link to={{ view: 'live', party }}>Watch this party's updates live</Link>
      </p>
      <h2>Details</h2>
      <Loading what="the party's details" loaded={details}>
        {(d) =>
          d ? (
            <>
              <Facts
                rows={[
                  ['Party id', <span class="mono break">{d.party}</span>],
                  ['Hosted here', d.isLocal ? 'yes (local)' : 'no'],
                  ['Identity provider', d.identityProviderId || 'default'],
                  ['Resource version', d.localMetadata?.resourceVersion],
                ]}
              />
              <h3>Annotations</h3>
              <Annotations annotations={d.localMetadata?.annotations ?? {}} />
            </>
          ) : (
            <p>This participant does not know this party.</p>
          )
        }
      </Loading>
      <h2>Active contracts</h2>
      <ActiveContracts key={party} party={party} />
      <h2>Recent updates</h2>
      <RecentUpdates key={party} party={party} />
    </section>
  );
}

function Annotations({ annotations }: { annotations: Record<string, string> }) {
  const entries = Object.entries(annotations);
  if (entries.length === 0) return <p class="muted">No annotations.</p>;
  return (
    <Table
      columns={['Key', 'Value']}
      items={entries}
      keyOf={([k]) => k}
      cells={([k, v]) => [<span class="mono">{k}</span>, v]}
    />
  );
}

/** The party's updates newest first, a page at a time (descending pages of POST /v2/updates, each ending below the last). */
function RecentUpdates({ party }: { party: string }) {
  const { session } = useExplorer();
  const [updates, setUpdates] = useState<LedgerUpdate[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [busy, setBusy] = useState(true);
  const [error, setError] = useState<string | null>(null);

  const load = async (endInclusive: number | null, reset: boolean) => {
    setBusy(true);
    try {
      const end = endInclusive ?? (await session.api.get<{ offset: number }>('/v2/state/ledger-end')).offset;
      const page =
        end < 1
          ? []
          : await session.api.post<unknown[]>(`/v2/updates?limit=${PAGE}`, {
              beginExclusive: 0,
              endInclusive: end,
              descendingOrder: true,
              updateFormat: updateFormat({ any: false, parties: [party] }),
            });
      const got = page.map(updateOf).filter((u): u is LedgerUpdate => u !== null);
      setUpdates((old) => (reset ? got : [...old, ...got]));
      const last = got.at(-1)?.offset;
      setNext(got.length === PAGE && last !== undefined && last > 1 ? last - 1 : null);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setUpdates([]);
    void load(null, true);
  }, [party]);

  return (
    <>
      {error ? <ErrorNote>{`Could not load the party's updates: ${error}`}</ErrorNote> : null}
      {updates.length === 0 && !busy && !error ? <p class="muted">No updates of this party.</p> : null}
      <ul class="plain-list" aria-label="The party's updates, newest first">
        {updates.map((u) => (
          <li key={u.offset}>
            <UpdateRow update={u} />
          </li>
        ))}
      </ul>
      {busy ? <p class="muted">Loading…</p> : null}
      {next !== null && !busy ? (
        <button type="button" onClick={() => void load(next, false)}>
          Older updates
        </button>
      ) : null}
    </>
  );
}

interface ActiveContractEntry {
  contractEntry?: { JsActiveContract?: { createdEvent: CreatedEvent; synchronizerId: string } };
  streamContinuationToken?: string;
}

/**
 * The party's active contracts at one offset (POST /v2/state/active-contracts, the list form), a page at a time: each
 * page resumes after the last entry of the one before (its stream continuation token), at the same offset.
 */
function ActiveContracts({ party }: { party: string }) {
  const { session } = useExplorer();
  const [at, setAt] = useState<number | null>(null);
  const [tokens, setTokens] = useState<Array<string | null>>([null]);
  const token = tokens[tokens.length - 1];
  const loaded = useLoad(
    async (signal) => {
      const offset = at ?? (await session.api.get<{ offset: number }>('/v2/state/ledger-end', signal)).offset;
      if (at === null) setAt(offset);
      const page = await session.api.post<ActiveContractEntry[]>(
        `/v2/state/active-contracts?limit=${PAGE}`,
        {
          activeAtOffset: offset,
          eventFormat: eventFormat({ any: false, parties: [party] }),
          streamContinuationToken: token,
        },
        signal,
      );
      return { offset, page, number: tokens.length };
    },
    [party, token],
  );
  return (
    <Loading what="the party's active contracts" loaded={loaded}>
      {({ offset, page, number }) => {
        const active = page.map((e) => e.contractEntry?.JsActiveContract).filter((c) => c !== undefined);
        const last = page.at(-1)?.streamContinuationToken;
        return (
          <>
            <p class="muted small">
              At offset {offset}
              {number > 1 ? `, page ${number}` : ''}.
            </p>
            {active.length === 0 ? (
              <p class="muted">No active contracts{number > 1 ? ' after these' : ''}.</p>
            ) : (
              <Table
                columns={['Contract', 'Template', 'Created', 'Signatories', 'Observers']}
                items={active}
                keyOf={(c) => `${c.createdEvent.contractId}:${c.synchronizerId}`}
                cells={(c) => [
                  <ContractLink contractId={c.createdEvent.contractId} />,
                  <span class="template">{shortTemplate(c.createdEvent.templateId)}</span>,
                  <Link
                    to={{ view: 'offset', offset: c.createdEvent.offset }}
                  >{`offset ${c.createdEvent.offset}`}</Link>,
                  <Parties parties={c.createdEvent.signatories} />,
                  <Parties parties={c.createdEvent.observers} />,
                ]}
              />
            )}
            <nav class="pager" aria-label="Active contract pages">
              <button type="button" disabled={tokens.length === 1} onClick={() => setTokens((t) => t.slice(0, -1))}>
                Previous contracts
              </button>
              <button
                type="button"
                disabled={page.length < PAGE || !last}
                onClick={() => setTokens((t) => [...t, last ?? null])}
              >
                More contracts
              </button>
            </nav>
          </>
        );
      }}
    </Loading>
  );
}
