import type { UntypedHandleCall } from '@grpc/grpc-js';
import type { INestApplicationContext } from '@nestjs/common';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { versionService } from './version.service';

/** The served RPCs by service (full protobuf name) and method (local name); every other RPC answers UNIMPLEMENTED. */
export type ServiceHandlers = Record<string, Record<string, UntypedHandleCall>>;

export function ledgerApiServices(app: INestApplicationContext, runtime: LedgerRuntime): ServiceHandlers {
  void app;
  return {
    'com.daml.ledger.api.v2.VersionService': versionService(runtime),
  };
}
