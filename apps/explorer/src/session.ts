/**
 * The signed-in token: pasted, or handed over in the URL fragment (`/explorer#token=…`, which a browser never sends to
 * the server). It is kept in the tab's sessionStorage only, so a reload keeps it and closing the tab forgets it.
 */
const KEY = 'ledgerline.explorer.token';

/** A token in the fragment: taken into the session and removed from the address bar (and so from the history). */
export function takeFragmentToken(): string | null {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const token = params.get('token');
  if (!token) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token.trim();
}

export function storedToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string | null): void {
  try {
    if (token === null) window.sessionStorage.removeItem(KEY);
    else window.sessionStorage.setItem(KEY, token);
  } catch {
    /* storage disabled: the session lasts as long as the page */
  }
}
