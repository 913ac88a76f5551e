import type { FastifyInstance, RouteOptions } from 'fastify';
import { isRawBodyRoute } from './request-body';

interface RouteEntry {
  method: string;
  url: string;
  schema?: RouteOptions['schema'];
  /** The route reads raw bytes (request-body.ts): documented as an octet-stream body. */
  rawBody: boolean;
  /** A body schema Fastify cannot validate (a GET that takes a body reads and checks it itself). */
  documentedBody?: unknown;
}

/**
 * Collects the routes as Fastify registers them (with their request schemas) and renders the OpenAPI document served at
 * GET /docs/openapi: the spec of what this server actually accepts. A route whose schema says `hide: true` (the
 * explorer's static files) counts for 405 answers but is not part of the API's document.
 */
export class RouteCatalog {
  private readonly routes: RouteEntry[] = [];

  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (r) => {
      for (const m of Array.isArray(r.method) ? r.method : [r.method]) {
        if (m === 'HEAD' || r.url === '*' || r.url === '/*') continue;
        const documentedBody = (r.config as { documentedBody?: unknown } | undefined)?.documentedBody;
        this.routes.push({
          method: m.toLowerCase(),
          url: r.url,
          schema: r.schema,
          rawBody: isRawBodyRoute(r.config),
          documentedBody,
        });
      }
    });
  }

  /**
   * The methods served at a concrete path (`HEAD` wherever `GET` is), for the `Allow` header of a 405. A `:param`
   * segment matches any one non-empty segment, `*` the rest of the path; static segments compare percent-decoded.
   */
  methodsAt(path: string): string[] {
    const segments = path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeSegment);
    const methods = new Set<string>();
    for (const r of this.routes) if (matches(r.url, segments)) methods.add(r.method.toUpperCase());
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  openApi(version: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const r of this.routes) {
      if ((r.schema as { hide?: boolean } | undefined)?.hide) continue;
      const path = r.url.replace(/:([A-Za-z0-9_-]+)/g, '{$1}');
      const params = [...r.url.matchAll(/:([A-Za-z0-9_-]+)/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
      const op: Record<string, unknown> = {
        operationId: `${r.method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
        parameters: params,
        responses: {
          '200': { description: 'OK', content: { 'application/json': {} } },
          '400': { description: 'Request does not decode', content: { 'text/plain': { schema: { type: 'string' } } } },
          default: {
            description: 'JsCantonError',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/JsCantonError' } } },
          },
        },
      };
      const body = r.schema?.body ?? r.documentedBody;
      if (body) op.requestBody = { required: true, content: { 'application/json': { schema: body } } };
      if (r.rawBody)
        op.requestBody = {
          required: true,
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        };
      if (path.startsWith('/v2')) op.security = [{ httpAuth: [] }];
      (paths[path] ??= {})[r.method] = op;
    }
    return {
      openapi: '3.0.3',
      info: {
        title: 'Ledgerline JSON Ledger API',
        version,
        description: 'Canton JSON Ledger API v2 (3.5 line) as served by Ledgerline',
      },
      paths,
      components: {
        securitySchemes: { httpAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        schemas: {
          JsCantonError: {
            type: 'object',
            required: ['code', 'cause', 'context', 'errorCategory'],
            properties: {
              code: { type: 'string' },
              cause: { type: 'string' },
              correlationId: { type: 'string', nullable: true },
              traceId: { type: 'string', nullable: true },
              context: { type: 'object', additionalProperties: { type: 'string' } },
              resources: {
                type: 'array',
                items: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 },
              },
              errorCategory: { type: 'integer' },
              grpcCodeValue: { type: 'integer', nullable: true },
              retryInfo: { type: 'string', nullable: true },
              definiteAnswer: { type: 'boolean', nullable: true },
            },
          },
        },
      },
    };
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function matches(pattern: string, segments: string[]): boolean {
  const parts = pattern.split('/').filter((s) => s !== '');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '*') return true;
    if (i >= segments.length) return false;
    if (parts[i].startsWith(':')) continue;
    if (parts[i] !== segments[i]) return false;
  }
  return parts.length === segments.length;
}
