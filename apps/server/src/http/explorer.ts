import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Logger } from 'pino';
import { PUBLIC_ROUTE_CONFIG } from '@ledgerline/auth';
import { httpError } from '@ledgerline/domain';
import { sendError } from './all-exceptions.filter';

/**
 * The ledger explorer (apps/explorer): a browser page that reads this ledger through the public JSON API with the
 * user's own token. Served here as static files, read into memory at start-up from the build (dist/apps/explorer). The
 * routes are public (the files hold no ledger data), left out of GET /docs/openapi (`schema.hide`), and answer only:
 * `/explorer` and the page's own paths (`/explorer/<view>/…`, so that deep links and reloads work) with its HTML,
 * `/explorer/assets/<file>` with a built file; anything else under /explorer is the usual 404 JsCantonError.
 */
export const EXPLORER_PATH = '/explorer';

/** The first segments of the page's own paths (its router's views). */
export const EXPLORER_VIEWS = ['updates', 'offsets', 'parties', 'contracts', 'users', 'synchronizers', 'completions'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The page may load its own files and talk to this origin (HTTP and WebSocket), nothing else. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** Where the build put the explorer: beside the compiled server (dist/), or in dist/ when the server runs from sources. */
export function explorerBuildDir(): string | null {
  const candidates = [
    path.resolve(__dirname, '../../../explorer'),
    path.resolve(__dirname, '../../../../dist/apps/explorer'),
  ];
  return (
    candidates.find(
      (d) => fs.existsSync(path.join(d, 'assets/explorer.js')) && fs.existsSync(path.join(d, 'index.html')),
    ) ?? null
  );
}

function load(file: string): StaticFile {
  const body = fs.readFileSync(file);
  return {
    body,
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

export function serveExplorer(
  app: FastifyInstance,
  opts: { participant: string; logger: Logger; dir?: string | null },
): void {
  const dir = opts.dir === undefined ? explorerBuildDir() : opts.dir;
  const index = dir ? load(path.join(dir, 'index.html')) : null;
  const assets = new Map<string, StaticFile>();
  if (dir)
    for (const name of fs.readdirSync(path.join(dir, 'assets'))) assets.set(name, load(path.join(dir, 'assets', name)));
  else opts.logger.warn('the explorer is not built (npm run build): /explorer answers 404');

  const missing = (req: FastifyRequest, reply: FastifyReply, what: string) =>
    sendError(reply, req, httpError('NOT_FOUND', what, 404), opts.participant, opts.logger);
  const send = (req: FastifyRequest, reply: FastifyReply, file: StaticFile) => {
    void reply
      .header('cache-control', 'no-cache')
      .header('etag', file.etag)
      .header('x-content-type-options', 'nosniff');
    if (file === index)
      void reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('referrer-policy', 'no-referrer');
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.type(file.type).send(file.body);
  };
  const page = (req: FastifyRequest, reply: FastifyReply) =>
    index ? send(req, reply, index) : missing(req, reply, 'The explorer is not built on this server.');
  const hide = { hide: true } as FastifySchema;
  // The explorer's files need no token (the page asks for one).
  const config = { [PUBLIC_ROUTE_CONFIG]: true };

  app.route({ method: 'GET', url: EXPLORER_PATH, schema: hide, config, handler: page });
  app.route({
    method: 'GET',
    url: `${EXPLORER_PATH}/assets/:file`,
    schema: hide,
    config,
    handler: (req: FastifyRequest, reply: FastifyReply) => {
      const file = assets.get((req.params as { file: string }).file);
      return file ? send(req, reply, file) : missing(req, reply, 'The requested resource could not be found.');
    },
  });
  app.route({
    method: 'GET',
    url: `${EXPLORER_PATH}/*`,
    schema: hide,
    config,
    handler: (req: FastifyRequest, reply: FastifyReply) => {
      const view = (req.params as { '*': string })['*'].split('/')[0];
      return EXPLORER_VIEWS.includes(view)
        ? page(req, reply)
        : missing(req, reply, 'The requested resource could not be found.');
    },
  });
}
