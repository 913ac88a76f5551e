import type { UntypedHandleCall } from '@grpc/grpc-js';
import type { INestApplicationContext } from '@nestjs/common';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { packageService } from './package.service';
import { partyManagementService } from './party-management.service';
import { stateService } from './state.service';
import { userManagementService } from './user-management.service';
import { versionService } from './version.service';

/** The served RPCs by service (full protobuf name) and method (local name); every other RPC answers UNIMPLEMENTED. */
export type ServiceHandlers = Record<string, Record<string, UntypedHandleCall>>;

export function ledgerApiServices(app: INestApplicationContext, runtime: LedgerRuntime): ServiceHandlers {
  return {
    'com.daml.ledger.api.v2.VersionService': versionService(runtime),
    'com.daml.ledger.api.v2.StateService': stateService(app, runtime),
    'com.daml.ledger.api.v2.PackageService': packageService(app, runtime),
    'com.daml.ledger.api.v2.admin.PartyManagementService': partyManagementService(app, runtime),
    'com.daml.ledger.api.v2.admin.UserManagementService': userManagementService(app, runtime),
  };
}
