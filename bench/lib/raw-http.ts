import { connect, type Socket } from 'node:net';

/**
 * The load generator's hot loop for one client: a single keep-alive HTTP/1.1 connection that writes requests already
 * serialised (request line, headers and body in one buffer, built before the timed window) and reads each response's
 * status and body. No pipelining: one request at a time per connection, as a client awaiting its answer sends.
 *
 * Why not undici here: the load generator shares the machine's two cores with the server and PostgreSQL, so its CPU per
 * request is taken from what is measured. undici's dispatch costs ≈ 50–70 µs per executeAndWait round trip on this machine
 * (header objects, its parser, a request object per call); writing bytes that are ready and scanning the answer for its
 * status and length is a fraction of that. Only the benchmarks use it, against our own server, whose answers carry a
 * Content-Length or are chunked; anything else is reported as an error rather than guessed at.
 */
export class RawHttpConnection {
  /** The connection, from the moment it is opened (it may still be connecting). */
  private socket?: Socket;
  private connecting?: Promise<Socket>;
  private pending?: { resolve: (r: RawResponse) => void; reject: (e: Error) => void };
  private buffered: Buffer = Buffer.alloc(0);
  private busy = false;
  /** The socket is connected (the hot path skips awaiting `connecting`). */
  private ready = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    /** A request with no complete answer after this long fails and its connection is closed (the bench cannot hang). */
    private readonly timeoutMs = 60_000,
  ) {}

  /** Sends `request` (a whole HTTP/1.1 request) and resolves with the answer. */
  async send(request: Buffer): Promise<RawResponse> {
    if (this.busy) throw new Error('RawHttpConnection: one request at a time');
    this.busy = true;
    try {
      const socket = this.ready ? this.socket! : await (this.connecting ?? this.open());
      return await new Promise<RawResponse>((resolve, reject) => {
        this.pending = { resolve, reject };
        socket.write(request);
      });
    } finally {
      this.busy = false;
    }
  }

  /** Closes the connection (also one still connecting); a request still waiting fails. The next `send` opens a new one. */
  close(): void {
    const s = this.socket;
    this.forget();
    this.settle(undefined, new Error('connection closed'));
    s?.destroy();
  }

  private forget(): void {
    this.ready = false;
    this.socket = undefined;
    this.connecting = undefined;
    this.buffered = Buffer.alloc(0);
  }

  private open(): Promise<Socket> {
    const s = connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = s;
    s.setTimeout(this.timeoutMs);
    const opening = new Promise<Socket>((resolve, reject) => {
      s.once('connect', () => {
        if (this.socket === s) this.ready = true;
        resolve(s);
      });
      const fail = (e: Error) => {
        if (this.socket === s) {
          this.forget();
          this.settle(undefined, e);
        }
        reject(e); // ignored once connected
      };
      s.on('error', fail);
      s.on('close', () => fail(new Error('connection closed')));
      s.on('timeout', () => {
        // Idle between requests: just close. Waiting for an answer: that request fails.
        fail(new Error(`no answer within ${this.timeoutMs} ms`));
        s.destroy();
      });
    });
    s.on('data', (chunk: Buffer) => {
      if (this.socket === s) this.onData(chunk);
    });
    this.connecting = opening;
    return opening;
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    let parsed: ReturnType<typeof parseResponse>;
    try {
      parsed = parseResponse(this.buffered);
    } catch (e) {
      this.settle(undefined, e as Error);
      this.close();
      return;
    }
    if (!parsed) return; // incomplete
    if (parsed.used !== this.buffered.length) {
      this.settle(undefined, new Error('bytes after the response on a connection without pipelining'));
      this.close();
      return;
    }
    this.buffered = Buffer.alloc(0);
    this.settle(parsed.response);
  }

  private settle(response?: RawResponse, error?: Error): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    if (response) p.resolve(response);
    else p.reject(error ?? new Error('no response'));
  }
}

export interface RawResponse {
  status: number;
  body: Buffer;
}

/** A whole HTTP/1.1 request: request line, `headers` (name → value), Content-Length and the body. */
export function serialiseRequest(method: string, path: string, headers: Record<string, string>, body: Buffer): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * One response at the start of `buf`: undefined while incomplete; `used` is how many bytes it took. Throws on what it
 * does not handle (no status line, neither Content-Length nor chunked).
 */
export function parseResponse(buf: Buffer): { response: RawResponse; used: number } | undefined {
  const headEnd = buf.indexOf(CRLFCRLF);
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  if (!m) throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(head.slice(0, 40))}`);
  const status = Number(m[1]);
  const bodyStart = headEnd + 4;
  // Chunked wins over a Content-Length sent with it (RFC 9112, 6.3).
  if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
    const parts: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at, 'latin1');
      if (lineEnd < 0) return undefined;
      const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      const dataStart = lineEnd + 2;
      if (size === 0) {
        // No trailers from our server: the last chunk is followed by an empty line.
        if (buf.length < dataStart + 2) return undefined;
        return { response: { status, body: Buffer.concat(parts) }, used: dataStart + 2 };
      }
      if (buf.length < dataStart + size + 2) return undefined;
      parts.push(buf.subarray(dataStart, dataStart + size));
      at = dataStart + size + 2;
    }
  }
  const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    if (buf.length < end) return undefined;
    return { response: { status, body: buf.subarray(bodyStart, end) }, used: end };
  }
  if (status === 204 || status === 304) return { response: { status, body: Buffer.alloc(0) }, used: bodyStart };
  throw new Error('a response with neither Content-Length nor chunked encoding');
}
