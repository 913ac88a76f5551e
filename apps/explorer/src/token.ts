/** What a JWT says about itself, read without verifying it (only the server can, and does on every call). */
export interface TokenClaims {
  sub?: string;
  /** Seconds since the epoch. */
  exp?: number;
}

/** The claims a JWT says it carries, or null if it is not a JWT. */
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
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= nowMs)
    return `This token expired at ${new Date(claims.exp * 1000).toLocaleString()}.`;
  return null;
}
