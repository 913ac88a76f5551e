import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, ApiError, describeError } from './api';
import { ExplorerContext, Link, useExplorer, type Explorer, type Session } from './components/common';
import { accessOf, readersFor, type Right } from './ledger';
import { LiveTail, type LiveSnapshot } from './live-tail';
import { hrefOf, parseRoute, routeForQuery, type Route } from './routes';
import { storedToken, storeToken, takeFragmentToken } from './session';
import { claimsOf, tokenProblem } from './token';
import { ContractView } from './views/contract';
import { CompletionsView } from './views/completions';
import { PartiesView, SynchronizersView, UsersView, UserView } from './views/directory';
import { ConnectionBadge, LiveView } from './views/live';
import { PartyView } from './views/party';
import { SignInView } from './views/sign-in';
import { UpdateView } from './views/update';

/** Who the token's user is and what it may read (GET /v2/authenticated-user and its rights). */
async function openSession(token: string): Promise<Session> {
  const problem = tokenProblem(token);
  if (problem) throw new Error(problem);
  const api = new Api(token);
  const { user } = await api.get<{ user: { id: string; primaryParty: string } }>('/v2/authenticated-user');
  const { rights } = await api.get<{ rights: Right[] }>(`/v2/users/${encodeURIComponent(user.id)}/rights`);
  return { api, userId: user.id, primaryParty: user.primaryParty, rights, access: accessOf(rights) };
}

const refusal = (e: unknown) =>
  e instanceof ApiError && e.refusesToken
    ? `The ledger refused this token: ${describeError(e)}. Sign in with a valid token.`
    : `Could not sign in: ${describeError(e)}`;

function App() {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.pathname, window.location.search));
  const [session, setSession] = useState<Session | null>(null);
  const [signInError, setSignInError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);

  const signOut = (message: string | null) => {
    storeToken(null);
    setSession(null);
    setSignInError(message);
  };

  const signIn = async (token: string) => {
    setBusy(true);
    setSignInError(null);
    try {
      const s = await openSession(token);
      s.api.onTokenRefused = (e) => signOut(`The ledger refused your token: ${describeError(e)}. Sign in again.`);
      storeToken(token);
      setSession(s);
    } catch (e) {
      storeToken(null);
      setSignInError(refusal(e));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const token = takeFragmentToken() ?? storedToken();
    if (token) void signIn(token);
    else setBusy(false);
    const onPop = () => setRoute(parseRoute(window.location.pathname, window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // The token's own expiry ends the session with a message rather than with failing calls.
  useEffect(() => {
    const exp = session ? claimsOf(session.api.token)?.exp : undefined;
    if (exp === undefined) return;
    const delay = exp * 1000 - Date.now();
    // A timer cannot wait longer than 2^31 - 1 ms (it would fire at once); a token valid that long outlives the page.
    if (delay > 2 ** 31 - 1) return;
    const timer = setTimeout(
      () => signOut(`Your token expired at ${new Date(exp * 1000).toLocaleString()}. Sign in again.`),
      Math.max(0, delay),
    );
    return () => clearTimeout(timer);
  }, [session]);

  const navigate = (to: Route) => {
    const href = hrefOf(to);
    if (href !== window.location.pathname + window.location.search) window.history.pushState(null, '', href);
    setRoute(to);
    window.scrollTo(0, 0);
  };

  if (!session) return <SignInView busy={busy} error={signInError} onToken={(t) => void signIn(t)} />;
  return (
    <SignedIn
      session={session}
      route={route}
      navigate={navigate}
      signOut={() => signOut(null)}
      refresh={() => signIn(session.api.token)}
    />
  );
}

function SignedIn(props: {
  session: Session;
  route: Route;
  navigate: (r: Route) => void;
  signOut: () => void;
  refresh: () => Promise<void>;
}) {
  const { session, route, navigate } = props;
  const explorer: Explorer = useMemo(() => ({ session, navigate, refresh: props.refresh }), [session]);
  // The live list keeps its filter while other pages are open, so that going back to it neither restarts nor loses it.
  const [liveParty, setLiveParty] = useState(route.view === 'live' ? route.party : undefined);
  useEffect(() => {
    if (route.view === 'live') setLiveParty(route.party);
  }, [route]);
  const snapshot = useLiveTail(session, liveParty);
  const exp = claimsOf(session.api.token)?.exp;
  return (
    <ExplorerContext.Provider value={explorer}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link to={{ view: 'live' }} class="brand">
          Ledgerline explorer
        </Link>
        <nav aria-label="Main">
          <Link to={{ view: 'live' }} current={route.view === 'live'}>
            Live
          </Link>
          <Link to={{ view: 'parties' }} current={route.view === 'parties' || route.view === 'party'}>
            Parties
          </Link>
          {session.access.admin || session.access.identityProviderAdmin ? (
            <Link to={{ view: 'users' }} current={route.view === 'users' || route.view === 'user'}>
              Users
            </Link>
          ) : null}
          <Link to={{ view: 'synchronizers' }} current={route.view === 'synchronizers'}>
            Synchronizers
          </Link>
          <Link to={{ view: 'completions', userId: session.userId }} current={route.view === 'completions'}>
            Completions
          </Link>
        </nav>
        <GoTo />
        <div class="who">
          {snapshot && route.view !== 'live' ? <ConnectionBadge state={snapshot.state} /> : null}
          <span title={exp ? `token valid until ${new Date(exp * 1000).toLocaleString()}` : undefined}>
            <Link to={{ view: 'user', userId: session.userId }}>{session.userId}</Link>
          </span>
          <button type="button" onClick={props.signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <View route={route} snapshot={snapshot} />
      </main>
    </ExplorerContext.Provider>
  );
}

/** The live tail runs while signed in (so that going back to the list is instant), restarted when its filter changes. */
function useLiveTail(
  session: Session,
  party: string | undefined,
): (LiveSnapshot & { pause(): void; resume(): void }) | null {
  const [snapshot, setSnapshot] = useState<LiveSnapshot | null>(null);
  const tail = useRef<LiveTail | null>(null);
  useEffect(() => {
    // A user who may read no party still sees the ledger end (it needs no party right).
    const t = new LiveTail(session.api, readersFor(session.access, party), setSnapshot);
    tail.current = t;
    setSnapshot(t.snapshot());
    void t.start();
    return () => t.stop();
  }, [session, party]);
  if (!snapshot) return null;
  return { ...snapshot, pause: () => tail.current?.pause(), resume: () => tail.current?.resume() };
}

function GoTo() {
  const { navigate } = useExplorer();
  const [text, setText] = useState('');
  return (
    <form
      class="goto"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const to = routeForQuery(text);
        if (to) navigate(to);
      }}
    >
      <label for="goto">Go to</label>
      <input
        id="goto"
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        placeholder="offset, update, party or contract id"
      />
    </form>
  );
}

function View({ route, snapshot }: { route: Route; snapshot: ReturnType<typeof useLiveTail> }) {
  switch (route.view) {
    case 'live':
      return snapshot ? (
        <LiveView snapshot={snapshot} party={route.party} pause={snapshot.pause} resume={snapshot.resume} />
      ) : null;
    case 'update':
      return <UpdateView updateId={route.updateId} />;
    case 'offset':
      return <UpdateView offset={route.offset} />;
    case 'parties':
      return <PartiesView />;
    case 'party':
      return <PartyView party={route.party} />;
    case 'contract':
      return <ContractView contractId={route.contractId} />;
    case 'users':
      return <UsersView />;
    case 'user':
      return <UserView userId={route.userId} />;
    case 'synchronizers':
      return <SynchronizersView />;
    case 'completions':
      return <CompletionsView userId={route.userId} />;
    case 'not-found':
      return (
        <section>
          <h1>Nothing here</h1>
          <p>
            The explorer has no page at <span class="mono">{route.path}</span>.{' '}
            <Link to={{ view: 'live' }}>Back to the live updates</Link>.
          </p>
        </section>
      );
  }
}

render(<App />, document.getElementById('app')!);
