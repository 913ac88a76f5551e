import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api';
import { ErrorNote, Facts, Link, Loading, Table, useExplorer, useFocusHeading, useLoad } from '../components/common';
import { updateFormat, updateOf, type LedgerUpdate } from '../ledger';
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
    async (signal) => (await session.api.get<{ partyDetails: PartyDetails[] }>(`/v2/parties/${encodeURIComponent(party)}`, signal)).partyDetails[0] ?? null,
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
      <h2>Recent updates</h2>
      <RecentUpdates party={party} />
    </section>
  );
}

function Annotations({ annotations }: { annotations: Record<string, string> }) {
  const entries = Object.entries(annotations);
  if (entries.length === 0) return <p class="muted">No annotations.</p>;
  return <Table columns={['Key', 'Value']} items={entries} keyOf={([k]) => k} cells={([k, v]) => [<span class="mono">{k}</span>, v]} />;
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
