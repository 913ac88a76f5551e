import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@ledgerline/auth';
import { isMigrated } from '@ledgerline/store';
import { HttpMetrics } from '../../infrastructure/metrics';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { RouteCatalog } from '../../http/route-catalog';

/** The Canton release whose JSON Ledger API this serves (3.5.7's operations and 3.5.10's additions). */
export const API_VERSION = '3.5.10';

/** Health, readiness, metrics, the served spec, and the API version. */
@Controller()
export class SystemController {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly metrics: HttpMetrics,
    private readonly catalog: RouteCatalog,
  ) {}

  @Public()
  @Get('livez')
  livez() {
    return { status: 'ok' };
  }

  /** Ready when the database answers and every migration is applied. */
  @Public()
  @Get('readyz')
  async readyz(@Res() reply: FastifyReply) {
    const ready = await isMigrated(this.runtime.database.pool).catch(() => false);
    void reply.status(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'unavailable',
      checks: { database: ready ? 'ok' : 'unreachable or not migrated' },
    });
  }

  @Public()
  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async prometheus() {
    return this.metrics.exposition();
  }

  @Public()
  @Get('docs/openapi')
  openapi() {
    return this.catalog.openApi(API_VERSION);
  }

  @Get('v2/version')
  version() {
    return {
      version: API_VERSION,
      features: {
        experimental: { staticTime: { supported: this.runtime.clock.mode === 'static' } },
        userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
        partyManagement: { maxPartiesPageSize: 10000 },
        offsetCheckpoint: {
          maxOffsetCheckpointEmissionDelay: { seconds: 60, nanos: 0, unknownFields: { fields: {} } },
        },
        packageFeature: { maxVettedPackagesPageSize: 100 },
      },
    };
  }
}
