/**
 * The explorer's only way to the ledger: Ledgerline's public JSON API and its WebSockets, with the signed-in user's
 * token (a Bearer header over HTTP, the `jwt.token.<token>` sub-protocol on a WebSocket, as any client sends them).
 */

/** A JsCantonError (or the 400 text/plain decode error) the server answered. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly context: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
  }

  /** The server refused the token itself (invalid, expired, another participant's, unknown user): signing in again is the fix. */
  get refusesToken(): boolean {
    return this.status === 401 || (this.status === 403 && this.context.ledger_api_error === 'invalid token');
  }
}

export type Json = Record<string, unknown>;

export class Api {
  /** Told once about every answer that refuses the token, wherever it came from. */
  onTokenRefused: (e: ApiError) => void = () => undefined;

  constructor(
    readonly token: string,
    private readonly origin = window.location.origin,
  ) {}

  get<T = Json>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, undefined, signal);
  }

  post<T = Json>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('POST', path, body, signal);
  }

  async request<T>(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.origin + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as T;
    const error = errorOf(res.status, text);
    if (error.refusesToken) this.onTokenRefused(error);
    throw error;
  }

  /** A WebSocket on `path` (e.g. /v2/updates), authenticated the way the JSON API expects from browsers. */
  socket(path: string): WebSocket {
    const url = new URL(path, this.origin);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return new WebSocket(url, ['daml.ws.auth', `jwt.token.${this.token}`]);
  }
}

/** The error of an answer's body: a JsCantonError's code and cause, else the text as it came. */
export function errorOf(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { code?: unknown; cause?: unknown; context?: Record<string, string> };
    if (typeof body.code === 'string' && typeof body.cause === 'string')
      return new ApiError(status, body.code, body.cause, body.context ?? {});
  } catch {
    /* not JSON: the text/plain decode error, or a proxy's page */
  }
  return new ApiError(
    status,
    status === 400 ? 'INVALID_ARGUMENT' : `HTTP_${status}`,
    text.slice(0, 500) || `HTTP ${status}`,
  );
}

/** gRPC codes of a WebSocket's error frame, as the HTTP status the same error would have had. */
const STATUS_OF_GRPC: Record<number, number> = { 3: 400, 5: 404, 7: 403, 8: 429, 16: 401 };

/** A JsCantonError received as a WebSocket message, or null for any other message. */
export function socketError(message: Json): ApiError | null {
  if (typeof message.code === 'string' && typeof message.cause === 'string' && !('update' in message)) {
    const status = STATUS_OF_GRPC[Number(message.grpcCodeValue)] ?? 0;
    return new ApiError(status, message.code, message.cause, (message.context as Record<string, string>) ?? {});
  }
  return null;
}

/** What a person reads about a failed call. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    // Authentication and authorization failures carry no detail on purpose (the server's security-sensitive answer).
    if (e.status === 401)
      return 'the token is not valid for this ledger (expired, wrongly signed, or meant for another participant)';
    if (e.refusesToken) return "the token's user does not exist on this participant";
    if (e.status === 403) return "Permission denied: the signed-in user's rights do not allow this.";
    return e.code.startsWith('HTTP_') || e.code === 'INVALID_ARGUMENT' ? e.detail : `${e.code}: ${e.detail}`;
  }
  if (e instanceof TypeError) return `The ledger could not be reached (${e.message}).`;
  return e instanceof Error ? e.message : String(e);
}
