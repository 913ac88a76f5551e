import { Body, Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import { hashingSchemeVersionName, isoMicros, type Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import { prepareRequestFromJs, prepareRequestSchema } from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { PrepareSubmissionQuery } from './queries/prepare-submission.query';
import type { PrepareSubmissionAnswer } from './queries/prepare-submission.handler';

/** POST /v2/interactive-submission/prepare (the generic template model; see README "Interactive submission"). */
@Controller('v2/interactive-submission')
export class PrepareSubmissionController {
  constructor(private readonly queries: QueryBus) {}

  @PostJson('prepare')
  @RouteSchema({ body: prepareRequestSchema })
  async prepare(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    const request = prepareRequestFromJs(body);
    const r: PrepareSubmissionAnswer = await this.queries.execute(new PrepareSubmissionQuery(claims, request));
    return {
      preparedTransaction: r.bytes.toString('base64'),
      preparedTransactionHash: r.hash.toString('base64'),
      hashingSchemeVersion: hashingSchemeVersionName(r.version),
      ...(request.verboseHashing ? { hashingDetails: r.hashingDetails } : {}),
      ...(r.costEstimation
        ? {
            costEstimation: {
              estimationTimestamp: isoMicros(r.costEstimation.estimationTimestamp),
              confirmationRequestTrafficCostEstimation: r.costEstimation.confirmationRequestTrafficCostEstimation,
              confirmationResponseTrafficCostEstimation: r.costEstimation.confirmationResponseTrafficCostEstimation,
              totalTrafficCostEstimation: r.costEstimation.totalTrafficCostEstimation,
            },
          }
        : {}),
    };
  }
}
