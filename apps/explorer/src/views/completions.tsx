import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ErrorNote, Link, Loading, Parties, Table, useExplorer, useFocusHeading, useLoad } from '../components/common';
import { actingParties, shortId, type Right } from '../ledger';

const PAGE = 50;

interface Completion {
  commandId: string;
  status?: { code: number; message: string };
  updateId: string;
  userId: string;
  actAs: string[];
  submissionId: string;
  offset: number;
  synchronizerTime?: { synchronizerId: string; recordTime: string };
}

/**
 * The command completions of a user (POST /v2/commands/completions), a page at a time forward from an offset: each
 * page starts after the last completion of the one before.
 */
export function CompletionsView({ userId }: { userId: string }) {
  const { session } = useExplorer();
  const heading = useFocusHeading(`completions:${userId}`);
  const [begins, setBegins] = useState<number[]>([0]);
  const begin = begins[begins.length - 1];
  const loaded = useLoad(
    async (signal) => {
      const own = userId === session.userId;
      const rights = own
        ? null
        : (await session.api.get<{ rights: Right[] }>(`/v2/users/${encodeURIComponent(userId)}/rights`, signal)).rights;
      const parties = actingParties(rights ?? session.rights);
      if (parties.length === 0) return { parties, completions: [] as Completion[] };
      const page = await session.api
        .post<Array<{ completionResponse?: { Completion?: { value: Completion } } }>>(
          `/v2/commands/completions?limit=${PAGE}&stream_idle_timeout_ms=300`,
          { userId, parties, beginExclusive: begin },
          signal,
        )
        .catch((e: unknown) => {
          // The route itself missing (a server without command completions), not an error of this request.
          if (e instanceof ApiError && e.code === 'NOT_FOUND')
            throw new Error('this server does not serve command completions (POST /v2/commands/completions).');
          throw e;
        });
      return {
        parties,
        completions: page.map((m) => m.completionResponse?.Completion?.value).filter((c): c is Completion => !!c),
      };
    },
    [userId, begin],
  );
  return (
    <section aria-labelledby="completions-title">
      <h1 id="completions-title" ref={heading} tabIndex={-1} class="break">
        Completions of {userId}
      </h1>
      <Loading what="completions" loaded={loaded}>
        {({ parties, completions }) => (
          <>
            <p>
              Commands submitted by <Link to={{ view: 'user', userId }}>{userId}</Link> acting as{' '}
              <Parties parties={parties} />, from offset {begin + 1} on.
            </p>
            {parties.length === 0 ? (
              <ErrorNote>This user can act as no party, so it has no completions to show.</ErrorNote>
            ) : null}
            {completions.length === 0 ? (
              <p class="muted">No completions{begin ? ' after this offset' : ''}.</p>
            ) : (
              <Table
                columns={['Offset', 'Command id', 'Status', 'Update', 'Act as', 'Recorded']}
                items={completions}
                keyOf={(c) => `${c.offset}:${c.submissionId}`}
                cells={(c) => [
                  <span class="mono">{c.offset}</span>,
                  <span class="mono break">{c.commandId}</span>,
                  !c.status || c.status.code === 0 ? (
                    'accepted'
                  ) : (
                    <span class="error-text">{`rejected (${c.status.code}): ${c.status.message}`}</span>
                  ),
                  c.updateId ? (
                    <Link to={{ view: 'update', updateId: c.updateId }} class="mono">
                      {shortId(c.updateId, 14)}
                    </Link>
                  ) : (
                    <span class="muted">—</span>
                  ),
                  <Parties parties={c.actAs} />,
                  <span class="muted">{c.synchronizerTime?.recordTime ?? ''}</span>,
                ]}
              />
            )}
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled={begins.length === 1} onClick={() => setBegins((b) => b.slice(0, -1))}>
                Earlier
              </button>
              <button
                type="button"
                disabled={completions.length < PAGE}
                onClick={() => setBegins((b) => [...b, completions[completions.length - 1].offset])}
              >
                Later
              </button>
            </nav>
          </>
        )}
      </Loading>
    </section>
  );
}
