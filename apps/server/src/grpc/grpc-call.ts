import {
  status as Status,
  type Metadata,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedHandleCall,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { authenticateRequest, LEDGER_SCOPE } from '@ledgerline/auth';
import {
  internalError,
  invalidArgument,
  isLedgerError,
  transientFailure,
  unauthenticated,
  type Claims,
  type LedgerError,
} from '@ledgerline/domain';
import { grpcErrorOf } from '@ledgerline/grpc';
import { isDatabaseUnavailable } from '@ledgerline/store';
import { DecodeError } from '@ledgerline/wire';
import { traceIdOf } from '../http/fastify-setup';
import type { LedgerRuntime } from '../infrastructure/runtime';

/** One RPC's view of its request: its trace id and the caller, authenticated as the JSON API authenticates. */
export class GrpcCall {
  private claimsPromise: Promise<Claims> | undefined;
  /** Canton's correlation id for the error status (a command's submission id), once the request names one. */
  correlationId: string | undefined;

  constructor(
    readonly runtime: LedgerRuntime,
    readonly metadata: Metadata,
    readonly traceId: string,
  ) {}

  /**
   * The caller's claims from `authorization: Bearer <JWT>` metadata, through the same passport strategy, key resolution,
   * claim rules and user lookup as an HTTP request (libs/auth authenticateRequest): UNAUTHENTICATED or PERMISSION_DENIED
   * as Canton answers them.
   */
  claims(): Promise<Claims> {
    this.claimsPromise ??= (async () => {
      const authorization = this.metadata.get('authorization')[0];
      const headers: Record<string, unknown> = {};
      if (typeof authorization === 'string') headers.authorization = authorization;
      try {
        return await authenticateRequest({ headers, [LEDGER_SCOPE]: this.runtime } as {
          headers: Record<string, unknown>;
        });
      } catch (e) {
        // An empty `Bearer` is a malformed header for HTTP (400 text/plain); gRPC has no such answer: no valid token.
        throw e instanceof DecodeError ? unauthenticated('Malformed authorization metadata') : e;
      }
    })();
    return this.claimsPromise;
  }
}

/** Any failure of an RPC as the LedgerError it is answered with (what the JSON layer renders from the same failure). */
export function ledgerErrorOf(e: unknown, logger: Logger, traceId: string): LedgerError {
  if (isLedgerError(e)) return e;
  if (e instanceof DecodeError) return invalidArgument(e.message);
  if (isDatabaseUnavailable(e)) return transientFailure('The ledger database is unavailable. Retry.');
  const reason = e instanceof Error ? e.message : String(e);
  logger.error({ traceId, err: e }, 'gRPC call failed');
  return internalError(reason);
}

function newCall(runtime: LedgerRuntime, metadata: Metadata): GrpcCall {
  const traceparent = metadata.get('traceparent')[0];
  return new GrpcCall(
    runtime,
    metadata,
    traceIdOf({ traceparent: typeof traceparent === 'string' ? traceparent : undefined }),
  );
}

function errorStatus(runtime: LedgerRuntime, call: GrpcCall, e: unknown) {
  const err = ledgerErrorOf(e, runtime.logger, call.traceId);
  const level = err.category.grpcCode === Status.INTERNAL ? 'error' : 'info';
  runtime.logger[level](
    { traceId: call.traceId, reason: `${err.code}: ${err.internalReason ?? err.causeText}` },
    'gRPC request failed',
  );
  return grpcErrorOf(err, {
    traceId: call.traceId,
    participant: runtime.config.participantName,
    correlationId: call.correlationId,
  });
}

/** A unary RPC: the handler's answer, or its failure as Canton's status with ErrorInfo. */
export function unary<Req, Res>(
  runtime: LedgerRuntime,
  handler: (request: Req, call: GrpcCall) => Promise<Res>,
): UntypedHandleCall {
  return (grpcCall: ServerUnaryCall<Req, Res>, done: sendUnaryData<Res>) => {
    const call = newCall(runtime, grpcCall.metadata);
    handler(grpcCall.request, call).then(
      (response) => done(null, response),
      (e: unknown) => done(errorStatus(runtime, call, e)),
    );
  };
}

/**
 * A server-streaming RPC: `handler` writes through `send`, which resolves once the client has taken the message (gRPC's
 * flow control: a slow reader holds the stream back, nothing piles up in memory); a cancelled call ends the handler's
 * `signal`. The handler's failure ends the stream with Canton's status.
 */
export function serverStream<Req, Res>(
  runtime: LedgerRuntime,
  handler: (request: Req, call: GrpcCall, send: (message: Res) => Promise<void>, signal: AbortSignal) => Promise<void>,
): UntypedHandleCall {
  return (grpcCall: ServerWritableStream<Req, Res>) => {
    const call = newCall(runtime, grpcCall.metadata);
    const abort = new AbortController();
    grpcCall.on('cancelled', () => abort.abort());
    grpcCall.on('error', () => abort.abort());
    const send = (message: Res) =>
      new Promise<void>((resolve, reject) => {
        if (abort.signal.aborted) return reject(abort.signal.reason);
        if (grpcCall.write(message)) return resolve();
        const onDrain = () => {
          abort.signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          grpcCall.off('drain', onDrain);
          reject(abort.signal.reason);
        };
        grpcCall.once('drain', onDrain);
        abort.signal.addEventListener('abort', onAbort, { once: true });
      });
    handler(grpcCall.request, call, send, abort.signal).then(
      () => {
        if (!abort.signal.aborted) grpcCall.end();
      },
      (e: unknown) => {
        if (abort.signal.aborted) return;
        grpcCall.emit('error', errorStatus(runtime, call, e));
      },
    );
  };
}

/** The answer of an RPC Ledgerline does not serve. */
export function unimplemented(service: string, method: string, why?: string): UntypedHandleCall {
  const details = `${service}/${method} is not served by Ledgerline${why ? `: ${why}` : ''}`;
  return ((_call: unknown, done?: sendUnaryData<unknown>) => {
    const status = { code: Status.UNIMPLEMENTED, details };
    if (typeof done === 'function') return done(status);
    const stream = _call as { emit(event: 'error', e: unknown): void };
    stream.emit('error', status);
  }) as UntypedHandleCall;
}
