import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import websocket from '@fastify/websocket';
import Ajv, { type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { authenticateRequest } from '@ledgerline/auth';
import { httpError, isLedgerError, type Claims } from '@ledgerline/domain';
import { DecodeError, renderError } from '@ledgerline/wire';
import { sendError } from '../http/all-exceptions.filter';
import { toErrorResponse, validationToDecodeError } from '../http/error-response';
import { traceIdOf } from '../http/fastify-setup';
import { webSocketHandshakeErrorHandler } from '../http/framework-errors';
import { LedgerRuntime } from '../infrastructure/runtime';
import { StreamLimiter } from './stream-limiter';
import { StreamAuthorization } from './stream-authorization';
import type { ElementStream } from './list-collector';
import { IDLE } from './update-stream';

/** A WebSocket stream endpoint: the client's one request (validated by `schema`) opens a stream of JSON texts. */
export interface WebSocketRoute {
  url: string;
  schema: Record<string, unknown>;
  open(claims: Claims, body: Record<string, unknown>): Promise<ElementStream<string>>;
}

/** Most bytes handed to a socket and not yet flushed before the stream stops reading. */
const HIGH_WATER_BYTES = 1 << 20;

/**
 * The WebSocket stream endpoints (asyncapi.yaml) of every capability: the updates, the completions and the active
 * contracts each add theirs (`addRoute`, from their onModuleInit), and all are served alike. The token comes in the
 * sub-protocol list (`daml.ws.auth, jwt.token.<jwt>`) and is verified during the upgrade by the HTTP guard's passport
 * strategy (a failure is an HTTP error before any upgrade). The client sends one request; the server sends the stream's
 * messages, or one JsCantonError message, and closes at the end of a bounded stream; without an end it keeps tailing.
 * Back-pressure: a page is read only while less than 1 MiB is waiting to be flushed to the client.
 * Limits: a client message larger than LEDGER_WS_MAX_MESSAGE_BYTES gets a REQUEST_TOO_LARGE JsCantonError frame and
 * close 1009 ("Message too large"), rejected from the frame header before it is buffered; a connection beyond the user's
 * LEDGER_MAX_STREAMS_PER_USER gets a MAXIMUM_NUMBER_OF_STREAMS frame and close 1013 ("Try again later").
 * Ongoing authorization (StreamAuthorization): when the token expires, an ACCESS_TOKEN_EXPIRED frame; when the user's
 * rights change or the user is deactivated, a STALE_STREAM_AUTHORIZATION frame; then close 1000.
 */
@Injectable()
export class WebSocketStreams implements OnModuleInit {
  private readonly ajv = new Ajv({ coerceTypes: false, useDefaults: false, allErrors: false, strict: false });
  private readonly routes: Array<WebSocketRoute & { validate: ValidateFunction }> = [];

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly runtime: LedgerRuntime,
    private readonly limiter: StreamLimiter,
    private readonly authorization: StreamAuthorization,
  ) {}

  /** Adds a WebSocket stream endpoint (from a module's onModuleInit, before the server starts listening). */
  addRoute(route: WebSocketRoute): void {
    this.routes.push({ ...route, validate: this.ajv.compile(route.schema) });
  }

  /** Mounts the routes: Fastify runs this plugin when it starts, after every module's onModuleInit has added its own. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(websocket, {
      options: {
        maxPayload: this.runtime.config.wsMaxMessageBytes,
        handleProtocols: (protocols: Set<string>) =>
          protocols.has('daml.ws.auth') ? 'daml.ws.auth' : ([...protocols][0] ?? false),
      },
    });
    void fastify.register(async (scope) => {
      // A handshake ws refuses (no key, unsupported version, …) is answered as a JsCantonError, not ws's text/html.
      const { participantName: participant } = this.runtime.config;
      scope.websocketServer.on(
        'wsClientError',
        webSocketHandshakeErrorHandler({ participant, logger: this.runtime.logger, traceId: traceIdOf }),
      );
      for (const route of this.routes) {
        scope.route({
          method: 'GET',
          url: route.url,
          // A plain GET (no upgrade) does not decode: 400 text/plain, as for any header that does not decode.
          handler: (req: FastifyRequest, reply: FastifyReply) =>
            sendError(
              reply,
              req,
              new DecodeError('header Upgrade', ''),
              this.runtime.config.participantName,
              this.runtime.logger,
            ),
          preValidation: (req: FastifyRequest, reply: FastifyReply, done: (e?: Error) => void) =>
            this.authenticate(req, reply, done),
          wsHandler: (socket: WebSocket, req: FastifyRequest) =>
            this.serve(route, socket, (req as unknown as { ledgerClaims: Claims }).ledgerClaims, String(req.id)),
        });
      }
    });
  }

  private authenticate(req: FastifyRequest, reply: FastifyReply, done: (e?: Error) => void): void {
    authenticateRequest(req).then(
      (claims) => {
        (req as unknown as { ledgerClaims: Claims }).ledgerClaims = claims;
        done();
      },
      (e) => sendError(reply, req, e, this.runtime.config.participantName, this.runtime.logger),
    );
  }

  private serve(
    route: WebSocketRoute & { validate: ValidateFunction },
    socket: WebSocket,
    claims: Claims,
    traceId: string,
  ): void {
    this.explainOversizedMessages(socket, traceId);
    socket.on('error', () => undefined);
    let release: () => void;
    try {
      release = this.limiter.acquire(claims);
    } catch (e) {
      socket.send(this.errorFrame(e, traceId));
      socket.close(1013, 'Maximum number of streams reached');
      return;
    }
    let stream: ElementStream<string> | null = null;
    let closed = false;
    // The stream ends when its token expires or its user's rights change (StreamAuthorization): an error frame, then close.
    const unwatch = this.authorization.watch(claims, (reason) => {
      stream?.close();
      if (socket.readyState !== socket.OPEN) return;
      socket.send(this.errorFrame(reason, traceId));
      socket.close(1000);
    });
    socket.on('close', () => {
      closed = true;
      unwatch();
      release();
      stream?.close();
    });
    socket.once('message', (data) => {
      void (async () => {
        try {
          const body = this.decode(route.validate, data.toString());
          stream = await route.open(claims, body);
          if (closed) return stream.close();
          await this.pump(socket, stream);
          if (socket.readyState === socket.OPEN) socket.close(1000);
        } catch (e) {
          if (socket.readyState !== socket.OPEN) return;
          socket.send(this.errorFrame(e, traceId));
          socket.close(1000);
        }
      })();
    });
  }

  /**
   * ws rejects a message over maxPayload by closing with 1009 and no reason (its receiver calls `close(1009)` on the
   * socket). That one call is intercepted: the client first gets a REQUEST_TOO_LARGE JsCantonError frame, then a close
   * with a reason it can read.
   */
  private explainOversizedMessages(socket: WebSocket, traceId: string): void {
    const close = socket.close.bind(socket);
    const limit = this.runtime.config.wsMaxMessageBytes;
    socket.close = ((code?: number, reason?: string | Buffer) => {
      if (code === 1009 && reason === undefined && socket.readyState === socket.OPEN) {
        const e = httpError(
          'REQUEST_TOO_LARGE',
          `The WebSocket message exceeds the limit of this participant (${limit} bytes)`,
          413,
        );
        socket.send(this.errorFrame(e, traceId));
        return close(1009, `Message too large (limit ${limit} bytes)`);
      }
      return close(code, reason);
    }) as WebSocket['close'];
  }

  private decode(validate: ValidateFunction, text: string): Record<string, unknown> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new DecodeError('body', `Malformed JSON: ${(e as Error).message}`);
    }
    if (!validate(body))
      throw validationToDecodeError({ validation: validate.errors ?? [], validationContext: 'body' });
    return body as Record<string, unknown>;
  }

  private errorFrame(e: unknown, traceId: string): string {
    const ctx = { traceId, participant: this.runtime.config.participantName };
    if (e instanceof DecodeError)
      return JSON.stringify(renderError(httpError('INVALID_ARGUMENT', e.message, 400), ctx).body);
    if (isLedgerError(e)) return JSON.stringify(renderError(e, ctx).body);
    const res = toErrorResponse(e, ctx);
    this.runtime.logger[res.logged.level](
      { traceId, reason: res.logged.reason, stack: res.logged.stack },
      'websocket stream failed',
    );
    return res.body;
  }

  private async pump(socket: WebSocket, stream: ElementStream<string>): Promise<void> {
    let pending = 0;
    let resume: (() => void) | null = null;
    const flushed = (size: number) => () => {
      pending -= size;
      if (resume && pending < HIGH_WATER_BYTES / 2) {
        const r = resume;
        resume = null;
        r();
      }
    };
    // Messages produced in one turn of the event loop (a page) leave in one write: cork the TCP socket until the next turn.
    const tcp = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    let corked = false;
    const uncork = () => {
      corked = false;
      tcp?.uncork();
    };
    try {
      for (;;) {
        if (socket.readyState !== socket.OPEN) return;
        const e = await stream.next(null);
        if (e === null) return;
        if (e === IDLE) continue;
        const text = e;
        pending += text.length;
        if (tcp && !corked) {
          corked = true;
          tcp.cork();
          setImmediate(uncork);
        }
        socket.send(text, flushed(text.length));
        if (pending >= HIGH_WATER_BYTES) await new Promise<void>((r) => (resume = r));
      }
    } finally {
      if (corked) uncork();
    }
  }
}
