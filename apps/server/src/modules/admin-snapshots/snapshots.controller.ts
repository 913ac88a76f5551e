import { Body, Controller, Delete, Get, Param } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import { PostJson } from '../../http/routes';
import { SnapshotsService } from './snapshots.service';

const nameSchema = { type: 'string', minLength: 1, maxLength: 40 };

/** The testing admin API: /v2/admin/snapshots, /v2/admin/forks, /v2/admin/reset (ParticipantAdmin; LEDGER_TESTING_API). */
@Controller('v2/admin')
export class SnapshotsController {
  constructor(private readonly snapshots: SnapshotsService) {}

  @Get('snapshots')
  list(@CurrentClaims() claims: Claims) {
    return this.snapshots.list(claims);
  }

  @PostJson('snapshots')
  @RouteSchema({
    body: { type: 'object', required: ['name'], properties: { name: nameSchema, replace: { type: 'boolean' } } },
  })
  create(@CurrentClaims() claims: Claims, @Body() body: { name: string; replace?: boolean }) {
    return this.snapshots.create(claims, body.name, body.replace === true);
  }

  @PostJson('snapshots/:name/restore')
  restore(@CurrentClaims() claims: Claims, @Param('name') name: string) {
    return this.snapshots.restore(claims, name);
  }

  @PostJson('snapshots/:name/fork')
  @RouteSchema({ body: { type: 'object', required: ['name'], properties: { name: nameSchema } } })
  fork(@CurrentClaims() claims: Claims, @Param('name') snapshot: string, @Body() body: { name: string }) {
    return this.snapshots.fork(claims, snapshot, body.name);
  }

  @Delete('snapshots/:name')
  delete(@CurrentClaims() claims: Claims, @Param('name') name: string) {
    return this.snapshots.delete(claims, name);
  }

  @Get('forks')
  forks(@CurrentClaims() claims: Claims) {
    return this.snapshots.listForks(claims);
  }

  @Delete('forks/:name')
  deleteFork(@CurrentClaims() claims: Claims, @Param('name') name: string) {
    return this.snapshots.deleteFork(claims, name);
  }

  @PostJson('reset')
  @RouteSchema({ body: { type: 'object', properties: { snapshot: nameSchema } } })
  reset(@CurrentClaims() claims: Claims, @Body() body: { snapshot?: string } | undefined) {
    return this.snapshots.reset(claims, body?.snapshot);
  }
}
