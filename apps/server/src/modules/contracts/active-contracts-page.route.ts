import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import Ajv from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateRequest } from '@ledgerline/auth';
import { httpError } from '@ledgerline/domain';
import {
  DecodeError,
  decodeGetActiveContractsPageRequest,
  getActiveContractsPageRequestSchema,
} from '@ledgerline/wire';
import { sendError } from '../../http/all-exceptions.filter';
import { validationToDecodeError } from '../../http/error-response';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { GetActiveContractsPageQuery } from './queries/contracts.queries';

/**
 * GET /v2/state/active-contracts-page takes a JSON body (as the reference's endpoint does). Fastify parses no body for
 * a GET, so this route reads it itself, with the same limit, JSON decoding and schema validation as every other body;
 * a GET without a body does not decode (400 text/plain), as at the reference. The body's schema is published in
 * /docs/openapi through the route's `documentedBody`.
 */
@Injectable()
export class ActiveContractsPageRoute implements OnModuleInit {
  private readonly validate = new Ajv({
    coerceTypes: false,
    useDefaults: false,
    allErrors: false,
    strict: false,
  }).compile(getActiveContractsPageRequestSchema);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly runtime: LedgerRuntime,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const { participantName } = this.runtime.config;
    fastify.route({
      method: 'GET',
      url: '/v2/state/active-contracts-page',
      config: { documentedBody: getActiveContractsPageRequestSchema },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        try {
          const body = await this.body(req);
          const claims = await authenticateRequest(req);
          return reply
            .code(200)
            .send(
              await this.queries.execute(
                new GetActiveContractsPageQuery(claims, decodeGetActiveContractsPageRequest(body)),
              ),
            );
        } catch (e) {
          sendError(reply, req, e, participantName, this.runtime.logger);
          return reply;
        }
      },
    });
  }

  private async body(req: FastifyRequest): Promise<Record<string, unknown>> {
    const limit = this.runtime.config.maxBodyBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req.raw as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit)
        throw httpError(
          'REQUEST_TOO_LARGE',
          `The request body exceeds the limit of this participant (${limit} bytes)`,
          413,
        );
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') throw new DecodeError('body', 'Missing body');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new DecodeError('body', `Malformed JSON: ${(e as Error).message}`);
    }
    if (!this.validate(body))
      throw validationToDecodeError({ validation: this.validate.errors ?? [], validationContext: 'body' });
    return body as Record<string, unknown>;
  }
}
