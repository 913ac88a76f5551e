import { create } from '@bufbuild/protobuf';
import type { INestApplicationContext } from '@nestjs/common';
import { ledgerApi } from '@ledgerline/grpc';
import { LedgerUpdatesRepository } from '@ledgerline/store';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { ParticipantIdentity } from '../infrastructure/participant-identity';
import { unary } from './grpc-call';

/**
 * StateService: the ledger end, pruning offsets and connected synchronizers, read as GET /v2/state/* reads them (any
 * authenticated caller). Active contracts: not yet over gRPC.
 */
export function stateService(app: INestApplicationContext, runtime: LedgerRuntime) {
  const updates = app.get(LedgerUpdatesRepository);
  const identity = app.get(ParticipantIdentity);
  return {
    getLedgerEnd: unary(runtime, async (_request, call) => {
      await call.claims();
      return create(ledgerApi.GetLedgerEndResponseSchema, { offset: BigInt(await updates.ledgerEnd(runtime.db)) });
    }),
    getLatestPrunedOffsets: unary(runtime, async (_request, call) => {
      await call.claims();
      const { prunedUpTo } = await updates.position(runtime.db);
      return create(ledgerApi.GetLatestPrunedOffsetsResponseSchema, {
        participantPrunedUpToInclusive: BigInt(prunedUpTo),
        allDivulgedContractsPrunedUpToInclusive: BigInt(prunedUpTo),
      });
    }),
    getConnectedSynchronizers: unary(runtime, async (_request, call) => {
      await call.claims();
      return create(ledgerApi.GetConnectedSynchronizersResponseSchema, {
        connectedSynchronizers: identity.synchronizers.map((s) => ({
          synchronizerAlias: s.alias,
          synchronizerId: s.id,
          permission: ledgerApi.ParticipantPermission.SUBMISSION,
        })),
      });
    }),
  };
}
