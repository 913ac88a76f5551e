import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { toErrorResponse } from './error-response';

/** Every error of the Nest pipeline (guards, handlers, Nest's own 404) leaves as a JsCantonError or a 400 text/plain. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly participant: string,
    private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(reply, req, exception, this.participant, this.logger);
  }
}

export function sendError(
  reply: FastifyReply,
  req: FastifyRequest,
  exception: unknown,
  participant: string,
  logger: Logger,
): void {
  const traceId = String(req.id);
  const res = toErrorResponse(exception, { traceId, participant });
  logger[res.logged.level](
    {
      traceId,
      method: req.method,
      url: req.url,
      status: res.status,
      reason: res.logged.reason,
      stack: res.logged.stack,
    },
    'request failed',
  );
  if (reply.sent) return;
  if (req.raw.headers.upgrade !== undefined && req.raw.headers.connection?.toLowerCase().includes('upgrade')) {
    // A refused upgrade: its socket belongs to no HTTP connection any more (Node handed it over), so nothing would close
    // it after the answer. Close it once the answer is out.
    void reply.header('connection', 'close');
    reply.raw.once('finish', () => req.raw.socket.end());
  }
  void reply.status(res.status).header('content-type', res.contentType).send(res.body);
}
