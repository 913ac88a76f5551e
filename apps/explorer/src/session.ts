/**
 * The signed-in token: pasted, or handed over in the URL fragment (`/explorer#token=…`, which a browser never sends to
 * the server). It is kept in the tab's sessionStorage only, so a reload keeps it and closing the tab forgets it.
 */
const KEY = 'ledgerline.explorer.token';

export interface TokenClaims {
  sub?: string;
  /** Seconds since the epoch. */
  exp?: number;
}

/** The claims a JWT says it carries (not verified: only the server can, and does on every call). Null if not a JWT. */
export function claimsOf(token: string): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json) as unknown;
    return claims && typeof claims === 'object' ? (claims as TokenClaims) : null;
  } catch {
    return null;
  }
}

/** Why a token cannot be used before even asking the server, or null. */
export function tokenProblem(token: string, nowMs = Date.now()): string | null {
  const claims = claimsOf(token);
  if (!claims) return 'This is not a JWT (three base64url parts separated by dots).';
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= nowMs) return `This token expired at ${new Date(claims.exp * 1000).toLocaleString()}.`;
  return null;
}

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
