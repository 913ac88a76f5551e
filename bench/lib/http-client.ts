import { Pool } from 'undici';

/**
 * The benchmarks' load generator: a fetch-shaped HTTP/1.1 client over undici's connection pool (keep-alive, no
 * pipelining). The load generator shares the 2-core machine with the server under test and PostgreSQL, so its own CPU
 * matters: per POST /v2/updates/transaction-by-id it used ~120–140 µs with node:http (and more with the global fetch)
 * and ~60–75 µs with undici's Pool, measured side by side on the same server.
 */
const pools = new Map<string, Pool>();
/** Parsed URLs: the benchmarks send to a handful of URLs, so each is parsed once, not per request. */
const targets = new Map<string, { origin: string; path: string }>();

export interface FastResponse {
  status: number;
  ok: boolean;
  headers: Record<string, string | string[] | undefined>;
  text(): Promise<string>;
  json(): Promise<any>;
}

export function fastFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<FastResponse> {
  let u = targets.get(url);
  if (!u) {
    const parsed = new URL(url);
    u = { origin: parsed.origin, path: parsed.pathname + parsed.search };
    if (targets.size < 1000) targets.set(url, u);
  }
  let pool = pools.get(u.origin);
  if (!pool) {
    pool = new Pool(u.origin, { connections: 256, pipelining: 1 });
    pools.set(u.origin, pool);
  }
  // undici's dispatch API: the body's chunks are collected as they come, without a stream object per response.
  return new Promise<FastResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: Record<string, string | string[] | undefined> = {};
    pool.dispatch(
      {
        origin: u.origin,
        path: u.path,
        method: (init.method ?? 'GET') as 'GET',
        headers: init.headers,
        body: init.body,
      },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders as Record<string, string | string[] | undefined>;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
          resolve({
            status,
            ok: status >= 200 && status < 300,
            headers,
            text: async () => text,
            json: async () => JSON.parse(text),
          });
        },
        onResponseError(_controller, err) {
          reject(err);
        },
      },
    );
  });
}

/** Closes the pools (ends the keep-alive connections); the next fastFetch opens new ones. */
export async function closeFastFetch(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
