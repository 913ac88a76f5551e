import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import {
  Facts,
  Link,
  Loading,
  PartyLink,
  RawJson,
  Table,
  useExplorer,
  useFocusHeading,
  useLoad,
} from '../components/common';
import type { Right } from '../ledger';

const PAGE_SIZE = 50;

/** Page tokens walked so far: back pops, next pushes (the API pages forward only). */
function usePages() {
  const [tokens, setTokens] = useState<string[]>(['']);
  return {
    token: tokens[tokens.length - 1],
    number: tokens.length,
    next: (t: string) => setTokens((ts) => [...ts, t]),
    back: () => setTokens((ts) => (ts.length > 1 ? ts.slice(0, -1) : ts)),
  };
}

function Pager(props: { number: number; nextToken: string; next: (t: string) => void; back: () => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.number === 1} onClick={props.back}>
        Previous page
      </button>
      <span>Page {props.number}</span>
      <button type="button" disabled={!props.nextToken} onClick={() => props.next(props.nextToken)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A list the API pages with page tokens (GET /v2/parties, GET /v2/users): one page of PAGE_SIZE at a time, as a table.
 */
function PagedTable<T>(props: {
  title: string;
  path: string;
  field: string;
  columns: string[];
  keyOf: (item: T) => string;
  cells: (item: T) => ComponentChildren[];
}) {
  const { session } = useExplorer();
  const heading = useFocusHeading(props.path);
  const pages = usePages();
  const loaded = useLoad(
    (signal) =>
      session.api.get<Record<string, unknown>>(
        `${props.path}?pageSize=${PAGE_SIZE}&pageToken=${encodeURIComponent(pages.token)}`,
        signal,
      ),
    [props.path, pages.token],
  );
  const id = `${props.field}-title`;
  return (
    <section aria-labelledby={id}>
      <h1 id={id} ref={heading} tabIndex={-1}>
        {props.title}
      </h1>
      <Loading what={props.title.toLowerCase()} loaded={loaded}>
        {(r) => (
          <>
            <Table
              columns={props.columns}
              items={(r[props.field] as T[]) ?? []}
              keyOf={props.keyOf}
              cells={props.cells}
            />
            <Pager
              number={pages.number}
              nextToken={String(r.nextPageToken ?? '')}
              next={pages.next}
              back={pages.back}
            />
          </>
        )}
      </Loading>
    </section>
  );
}

interface PartyRow {
  party: string;
  isLocal: boolean;
  identityProviderId: string;
}

export const PartiesView = () => (
  <PagedTable<PartyRow>
    title="Parties"
    path="/v2/parties"
    field="partyDetails"
    columns={['Party', 'Hosted here', 'Identity provider']}
    keyOf={(p) => p.party}
    cells={(p) => [
      <Link to={{ view: 'party', party: p.party }} class="mono break">
        {p.party}
      </Link>,
      p.isLocal ? 'yes' : 'no',
      p.identityProviderId || 'default',
    ]}
  />
);

interface User {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  identityProviderId: string;
}

export const UsersView = () => (
  <PagedTable<User>
    title="Users"
    path="/v2/users"
    field="users"
    columns={['User', 'Primary party', 'Active', 'Identity provider']}
    keyOf={(u) => u.id}
    cells={(u) => [
      <Link to={{ view: 'user', userId: u.id }}>{u.id}</Link>,
      u.primaryParty ? <PartyLink party={u.primaryParty} /> : <span class="muted">none</span>,
      u.isDeactivated ? 'deactivated' : 'yes',
      u.identityProviderId || 'default',
    ]}
  />
);

/** `{kind: {CanActAs: {value: {party}}}}` → ["CanActAs", party]. */
const rightOf = (r: Right): [string, string | undefined] => {
  const [kind, body] = Object.entries(r.kind)[0] ?? ['?', undefined];
  return [kind, body?.value?.party];
};

export function UserView({ userId }: { userId: string }) {
  const { session } = useExplorer();
  const heading = useFocusHeading(`user:${userId}`);
  const id = encodeURIComponent(userId);
  const loaded = useLoad(
    async (signal) => {
      const [user, rights] = await Promise.all([
        session.api.get<{ user: User }>(`/v2/users/${id}`, signal),
        session.api.get<{ rights: Right[] }>(`/v2/users/${id}/rights`, signal),
      ]);
      return { user: user.user, rights: rights.rights };
    },
    [userId],
  );
  return (
    <section aria-labelledby="user-title">
      <h1 id="user-title" ref={heading} tabIndex={-1} class="break">
        User {userId}
      </h1>
      <Loading what="the user" loaded={loaded}>
        {({ user, rights }) => (
          <>
            <Facts
              rows={[
                ['User id', user.id],
                ['Primary party', user.primaryParty ? <PartyLink party={user.primaryParty} /> : 'none'],
                ['Active', user.isDeactivated ? 'deactivated' : 'yes'],
                ['Identity provider', user.identityProviderId || 'default'],
              ]}
            />
            <p>
              <Link to={{ view: 'completions', userId: user.id }}>Command completions of this user</Link>
            </p>
            <h2>Rights</h2>
            {rights.length === 0 ? (
              <p class="muted">No rights.</p>
            ) : (
              <Table
                columns={['Right', 'Party']}
                items={rights.map(rightOf)}
                keyOf={(_, i) => i}
                cells={([kind, party]) => [kind, party ? <PartyLink party={party} /> : <span class="muted">—</span>]}
              />
            )}
            <RawJson value={user} />
          </>
        )}
      </Loading>
    </section>
  );
}

interface Synchronizer {
  synchronizerAlias: string;
  synchronizerId: string;
  permission: string;
}

export function SynchronizersView() {
  const { session } = useExplorer();
  const heading = useFocusHeading('synchronizers');
  const loaded = useLoad(async (signal) => {
    const [sync, pruned] = await Promise.all([
      session.api.get<{ connectedSynchronizers: Synchronizer[] }>('/v2/state/connected-synchronizers', signal),
      session.api.get<{ participantPrunedUpToInclusive: number }>('/v2/state/latest-pruned-offsets', signal),
    ]);
    return { synchronizers: sync.connectedSynchronizers, pruned: pruned.participantPrunedUpToInclusive };
  }, []);
  return (
    <section aria-labelledby="sync-title">
      <h1 id="sync-title" ref={heading} tabIndex={-1}>
        Synchronizers
      </h1>
      <Loading what="synchronizers" loaded={loaded}>
        {({ synchronizers, pruned }) => (
          <>
            <Table
              columns={['Alias', 'Synchronizer id', 'Permission']}
              items={synchronizers}
              keyOf={(s) => s.synchronizerId}
              cells={(s) => [
                s.synchronizerAlias,
                <span class="mono break">{s.synchronizerId}</span>,
                s.permission.replace('PARTICIPANT_PERMISSION_', '').toLowerCase(),
              ]}
            />
            <p>Pruned up to offset {pruned || 'none (nothing pruned)'}.</p>
          </>
        )}
      </Loading>
    </section>
  );
}
