import WebSocket from 'ws';

export interface WsResult {
  messages: any[];
  closeCode: number | null;
  /** HTTP status when the upgrade was refused. */
  rejectedStatus?: number;
  rejectedBody?: string;
}

/**
 * Opens `path` over WebSocket with the `daml.ws.auth, jwt.token.<jwt>` sub-protocols, sends `request` and collects the
 * messages until the server closes, or until `until(messages)` holds (then closes itself).
 */
export function wsCollect(
  baseUrl: string,
  path: string,
  token: string | null,
  request: unknown,
  until?: (messages: any[]) => boolean,
): Promise<WsResult> {
  return new Promise((resolve, reject) => {
    const protocols = token === null ? ['daml.ws.auth'] : ['daml.ws.auth', `jwt.token.${token}`];
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, protocols);
    const messages: any[] = [];
    let done = false;
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        done = true;
        resolve({ messages, closeCode: null, rejectedStatus: res.statusCode, rejectedBody: body });
      });
    });
    ws.on('open', () => ws.send(typeof request === 'string' ? request : JSON.stringify(request)));
    ws.on('message', (data) => {
      messages.push(JSON.parse(data.toString()));
      if (!done && until?.(messages)) {
        done = true;
        ws.close();
        resolve({ messages, closeCode: null });
      }
    });
    ws.on('close', (code) => {
      if (!done) {
        done = true;
        resolve({ messages, closeCode: code });
      }
    });
    ws.on('error', (e) => {
      if (!done) reject(e);
    });
  });
}
