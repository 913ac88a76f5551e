import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { TokenRegistryError } from '@ledgerline/domain';

/**
 * The registry API's refusals leave with the token standard's ErrorResponse (`{"error": …}`) and their status; every
 * other error (authentication, the JSON body's parsing) goes to the service's filter and leaves as a JsCantonError.
 */
@Catch(TokenRegistryError)
export class TokenRegistryErrorFilter implements ExceptionFilter {
  catch(e: TokenRegistryError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply.status(e.status).header('content-type', 'application/json').send(e.body);
  }
}
