import { useState } from 'preact/hooks';

/** Paste a token; the page keeps it for this tab only and sends it to this server only. */
export function SignInView(props: { busy: boolean; error: string | null; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main id="main" class="sign-in">
      <h1>Ledgerline explorer</h1>
      <p>
        Watch and browse this ledger with your own access token: the explorer sees what the token's user may see through
        the JSON Ledger API, no more.
      </p>
      {props.error ? (
        <p class="error" role="alert" data-testid="sign-in-error">
          {props.error}
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) props.onToken(token.trim());
        }}
      >
        <label for="token">Access token (JWT)</label>
        <textarea
          id="token"
          rows={5}
          value={token}
          onInput={(e) => setToken((e.currentTarget as HTMLTextAreaElement).value)}
          spellcheck={false}
          autoComplete="off"
          required
        />
        <button type="submit" disabled={props.busy}>
          {props.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted small">
        Get a token from your identity provider, or for this server's own HS256 secret:{' '}
        <code>npm run ledgerctl -- token --user &lt;user id&gt;</code>. The token stays in this tab's session storage
        and is forgotten when the tab closes.
      </p>
    </main>
  );
}
