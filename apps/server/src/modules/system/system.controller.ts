import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@ledgerline/auth';
import { isMigrated } from '@ledgerline/store';
import { HttpMetrics } from '../../infrastructure/metrics';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { RouteCatalog } from '../../http/route-catalog';

import { API_VERSION, apiVersionInfo } from './api-version';

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
    // The gRPC port as bound (LEDGER_GRPC_PORT=0 binds any free one), for clients and tests that start the server.
    return this.runtime.grpcPort === null ? { status: 'ok' } : { status: 'ok', grpcPort: this.runtime.grpcPort };
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
    const v = apiVersionInfo(this.runtime.clock);
    return {
      version: v.version,
      features: {
        experimental: { staticTime: { supported: v.staticTime } },
        userManagement: v.userManagement,
        partyManagement: v.partyManagement,
        offsetCheckpoint: {
          maxOffsetCheckpointEmissionDelay: {
            seconds: v.maxOffsetCheckpointEmissionDelaySeconds,
            nanos: 0,
            unknownFields: { fields: {} },
          },
        },
        packageFeature: v.packageFeature,
      },
    };
  }
}
