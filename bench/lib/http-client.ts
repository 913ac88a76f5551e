import http from 'node:http';

/**
 * A minimal fetch-compatible HTTP/1.1 client over keep-alive sockets (node:http). The benchmarks use it instead of the
 * global `fetch`: on this 2-core machine fetch's own CPU cost (undici) was the bottleneck, not the server under test.
 */
const agents = new Map<string, http.Agent>();

export interface FastResponse {
  status: number;
  ok: boolean;
  headers: http.IncomingHttpHeaders;
  text(): Promise<string>;
  json(): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function fastFetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<FastResponse> {
  const u = new URL(url);
  let agent = agents.get(u.host);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    agents.set(u.host, agent);
  }
  const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
  const headers: Record<string, string | number> = { ...(init.headers ?? {}) };
  if (body) headers['content-length'] = body.length;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: init.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, headers: res.headers, text: async () => text, json: async () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}
