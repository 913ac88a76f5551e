import { useState } from 'preact/hooks';
import { describeError } from '../api';
import { ErrorNote, Link, Parties, useExplorer, useFocusHeading } from '../components/common';
import { VirtualList } from '../components/virtual-list';
import { shortId, summarize, type LedgerUpdate } from '../ledger';
import type { ConnectionState, LiveSnapshot } from '../live-tail';

const KIND_LABEL: Record<LedgerUpdate['kind'], string> = {
  Transaction: 'transaction',
  Reassignment: 'reassignment',
  TopologyTransaction: 'topology',
};

export function UpdateRow({ update }: { update: LedgerUpdate }) {
  const s = summarize(update);
  return (
    <div class="row">
      <span class="offset mono">{update.offset}</span>
      <span class={`kind kind-${update.kind}`}>{KIND_LABEL[update.kind]}</span>
      <Link
        to={{ view: 'update', updateId: update.updateId }}
        class="mono update-link"
        title={`Update ${update.updateId}`}
      >
        {shortId(update.updateId, 14)}
      </Link>
      <span class="what">{s.what}</span>
      <span class="templates">{s.templates.slice(0, 2).join(', ')}</span>
      <span class="row-parties">
        <Parties parties={s.parties.slice(0, 2)} />
        {s.parties.length > 2 ? <span class="muted"> +{s.parties.length - 2}</span> : null}
      </span>
      <span class="when muted">{update.recordTime.slice(11, 23)}</span>
    </div>
  );
}

export const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  live: 'live',
  paused: 'paused',
  throttled: 'catching up',
  reconnecting: 'reconnecting…',
  stopped: 'stopped',
};

export function ConnectionBadge({ state }: { state: ConnectionState }) {
  return (
    <span class={`badge state-${state}`} role="status" aria-live="polite" data-testid="connection">
      {STATE_LABEL[state]}
    </span>
  );
}

export function LiveView(props: { snapshot: LiveSnapshot; party?: string; pause: () => void; resume: () => void }) {
  const { session, navigate } = useExplorer();
  const heading = useFocusHeading(`live:${props.party ?? ''}`);
  const [filter, setFilter] = useState(props.party ?? '');
  const s = props.snapshot;
  const paused = s.state === 'paused';
  return (
    <section aria-labelledby="live-title">
      <div class="view-head">
        <h1 id="live-title" ref={heading} tabIndex={-1}>
          Live updates{props.party ? ' of one party' : ''}
        </h1>
        <div class="live-facts">
          <span>
            Ledger end{' '}
            <strong class="mono" data-testid="ledger-end">
              {s.ledgerEnd ?? '…'}
            </strong>
          </span>
          <ConnectionBadge state={s.state} />
          <button type="button" onClick={paused ? props.resume : props.pause} aria-pressed={paused}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        </div>
      </div>
      <form
        class="filter"
        onSubmit={(e) => {
          e.preventDefault();
          navigate({ view: 'live', party: filter.trim() || undefined });
        }}
      >
        <label for="party-filter">Only updates of party</label>
        <input
          id="party-filter"
          list="readable-parties"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
          placeholder="any party"
          size={50}
        />
        <datalist id="readable-parties">
          {session.access.parties.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <button type="submit">Filter</button>
        {props.party ? (
          <button type="button" onClick={() => navigate({ view: 'live' })}>
            Show all
          </button>
        ) : null}
      </form>
      {s.error ? <ErrorNote>{s.error}</ErrorNote> : null}
      {!session.access.readAny && session.access.admin && !props.party ? <GrantReadAny /> : null}
      {s.updates.length === 0 ? (
        <p class="muted">
          {s.state === 'live' ? 'No updates yet: new ones appear here as they commit.' : 'No updates to show.'}
        </p>
      ) : (
        <VirtualList
          items={s.updates}
          rowHeight={40}
          label="Updates, newest first"
          keyOf={(u) => u.offset}
          row={(u) => <UpdateRow update={u} />}
        />
      )}
      <p class="muted small">
        Showing the newest {s.updates.length} updates
        {s.dropped
          ? `; ${s.dropped} older ones received here are no longer kept (open an offset or a party to page through them)`
          : ''}
        {s.pending ? `; ${s.pending} waiting to be shown` : ''}.
      </p>
    </section>
  );
}

/**
 * An administrator reads no party's updates by being one (as in Canton): it needs CanReadAsAnyParty. The page offers
 * to grant it, with the administrator's own token and only on request.
 */
function GrantReadAny() {
  const { session, refresh } = useExplorer();
  const [error, setError] = useState<string | null>(null);
  const grant = async () => {
    try {
      const id = encodeURIComponent(session.userId);
      await session.api.post(`/v2/users/${id}/rights`, {
        userId: session.userId,
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
        identityProviderId: '',
      });
      await refresh();
    } catch (e) {
      setError(describeError(e));
    }
  };
  return (
    <div class="notice">
      <p>
        <strong>{session.userId}</strong> administers this participant but may not read any party's updates: that takes
        the right <code>CanReadAsAnyParty</code> (or rights to read as particular parties).
      </p>
      <button type="button" onClick={() => void grant()}>
        Grant {session.userId} CanReadAsAnyParty
      </button>
      {error ? <ErrorNote>{error}</ErrorNote> : null}
    </div>
  );
}
