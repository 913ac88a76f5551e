import { useState } from 'preact/hooks';
import { Facts, Link, Loading, PartyLink, RawJson, useExplorer, useFocusHeading, useLoad } from '../components/common';
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

interface PartyRow {
  party: string;
  isLocal: boolean;
  identityProviderId: string;
}

export function PartiesView() {
  const { session } = useExplorer();
  const heading = useFocusHeading('parties');
  const pages = usePages();
  const loaded = useLoad(
    (signal) => session.api.get<{ partyDetails: PartyRow[]; nextPageToken: string }>(`/v2/parties?pageSize=${PAGE_SIZE}&pageToken=${encodeURIComponent(pages.token)}`, signal),
    [pages.token],
  );
  return (
    <section aria-labelledby="parties-title">
      <h1 id="parties-title" ref={heading} tabIndex={-1}>
        Parties
      </h1>
      <Loading what="parties" loaded={loaded}>
        {(r) => (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">Party</th>
                  <th scope="col">Hosted here</th>
                  <th scope="col">Identity provider</th>
                </tr>
              </thead>
              <tbody>
                {r.partyDetails.map((p) => (
                  <tr key={p.party}>
                    <td>
                      <Link to={{ view: 'party', party: p.party }} class="mono break">
                        {p.party}
                      </Link>
                    </td>
                    <td>{p.isLocal ? 'yes' : 'no'}</td>
                    <td>{p.identityProviderId || 'default'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager number={pages.number} nextToken={r.nextPageToken} next={pages.next} back={pages.back} />
          </>
        )}
      </Loading>
    </section>
  );
}

interface User {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  identityProviderId: string;
  metadata?: { annotations?: Record<string, string> };
}

export function UsersView() {
  const { session } = useExplorer();
  const heading = useFocusHeading('users');
  const pages = usePages();
  const loaded = useLoad(
    (signal) => session.api.get<{ users: User[]; nextPageToken: string }>(`/v2/users?pageSize=${PAGE_SIZE}&pageToken=${encodeURIComponent(pages.token)}`, signal),
    [pages.token],
  );
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title" ref={heading} tabIndex={-1}>
        Users
      </h1>
      <Loading what="users" loaded={loaded}>
        {(r) => (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Primary party</th>
                  <th scope="col">Active</th>
                  <th scope="col">Identity provider</th>
                </tr>
              </thead>
              <tbody>
                {r.users.map((u) => (
                  <tr key={u.id}>
                    <td>
                      <Link to={{ view: 'user', userId: u.id }}>{u.id}</Link>
                    </td>
                    <td>{u.primaryParty ? <PartyLink party={u.primaryParty} /> : <span class="muted">none</span>}</td>
                    <td>{u.isDeactivated ? 'deactivated' : 'yes'}</td>
                    <td>{u.identityProviderId || 'default'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager number={pages.number} nextToken={r.nextPageToken} next={pages.next} back={pages.back} />
          </>
        )}
      </Loading>
    </section>
  );
}

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
              <table>
                <thead>
                  <tr>
                    <th scope="col">Right</th>
                    <th scope="col">Party</th>
                  </tr>
                </thead>
                <tbody>
                  {rights.map((r, i) => {
                    const [kind, party] = rightOf(r);
                    return (
                      <tr key={i}>
                        <td>{kind}</td>
                        <td>{party ? <PartyLink party={party} /> : <span class="muted">—</span>}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
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
  const loaded = useLoad(
    async (signal) => {
      const [sync, pruned] = await Promise.all([
        session.api.get<{ connectedSynchronizers: Synchronizer[] }>('/v2/state/connected-synchronizers', signal),
        session.api.get<{ participantPrunedUpToInclusive: number }>('/v2/state/latest-pruned-offsets', signal),
      ]);
      return { synchronizers: sync.connectedSynchronizers, pruned: pruned.participantPrunedUpToInclusive };
    },
    [],
  );
  return (
    <section aria-labelledby="sync-title">
      <h1 id="sync-title" ref={heading} tabIndex={-1}>
        Synchronizers
      </h1>
      <Loading what="synchronizers" loaded={loaded}>
        {({ synchronizers, pruned }) => (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">Alias</th>
                  <th scope="col">Synchronizer id</th>
                  <th scope="col">Permission</th>
                </tr>
              </thead>
              <tbody>
                {synchronizers.map((s) => (
                  <tr key={s.synchronizerId}>
                    <td>{s.synchronizerAlias}</td>
                    <td class="mono break">{s.synchronizerId}</td>
                    <td>{s.permission.replace('PARTICIPANT_PERMISSION_', '').toLowerCase()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p>Pruned up to offset {pruned || 'none (nothing pruned)'}.</p>
          </>
        )}
      </Loading>
    </section>
  );
}
