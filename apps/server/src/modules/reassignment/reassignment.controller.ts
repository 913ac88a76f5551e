import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import { renderReassignment, type Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  checkEventFormatIdentifiers,
  submitAndWaitForReassignmentSchema,
  submitReassignmentSchema,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { SubmitReassignmentCommand, type ReassignmentRequestBody } from './commands/submit-reassignment.command';
import type { ReassignmentResult } from './commands/submit-reassignment.handler';

/** Reassignment submission: thin HTTP mapping onto SubmitReassignmentCommand. */
@Controller('v2/commands')
export class ReassignmentController {
  constructor(private readonly commands: CommandBus) {}

  @PostJson('submit-and-wait-for-reassignment')
  @RouteSchema({ body: submitAndWaitForReassignmentSchema })
  async submitAndWait(@CurrentClaims() claims: Claims, @Body() body: ReassignmentRequestBody) {
    checkEventFormatIdentifiers(body.eventFormat);
    const r: ReassignmentResult = await this.commands.execute(new SubmitReassignmentCommand(claims, body, true));
    const { header } = r;
    const update = {
      offset: header.offset,
      updateId: header.updateId,
      kind: header.kind,
      synchronizerId: header.synchronizerId,
      recordTime: header.recordTime,
      payload: r.data,
    };
    return { reassignment: renderReassignment(update, r.format, { keepEmpty: true }) };
  }

  @PostJson('async/submit-reassignment')
  @RouteSchema({ body: submitReassignmentSchema })
  async submit(@CurrentClaims() claims: Claims, @Body() body: ReassignmentRequestBody) {
    await this.commands.execute(
      new SubmitReassignmentCommand(claims, { reassignmentCommands: body.reassignmentCommands }, false),
    );
    return {};
  }
}
