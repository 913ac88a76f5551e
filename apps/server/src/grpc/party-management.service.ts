import { create } from '@bufbuild/protobuf';
import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { fullDetails, type PartyDetailsView, type PartyRecord } from '@ledgerline/domain';
import { ledgerAdmin } from '@ledgerline/grpc';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { ParticipantIdentity } from '../infrastructure/participant-identity';
import { AllocatePartyCommand } from '../modules/parties/commands/party.commands';
import { GetPartiesQuery, ListPartiesQuery } from '../modules/parties/queries/party.queries';
import { unary } from './grpc-call';

const partyDetails = (v: PartyDetailsView) => ({
  party: v.party,
  isLocal: v.isLocal,
  localMetadata: { resourceVersion: v.resourceVersion, annotations: v.annotations },
  identityProviderId: v.identityProviderId,
});

/** PartyManagementService: the commands and queries of /v2/parties (PartiesController), over gRPC. */
export function partyManagementService(app: INestApplicationContext, runtime: LedgerRuntime) {
  const commands = app.get(CommandBus);
  const queries = app.get(QueryBus);
  const identity = app.get(ParticipantIdentity);
  return {
    getParticipantId: unary(runtime, async (_request, call) => {
      await call.claims();
      return create(ledgerAdmin.GetParticipantIdResponseSchema, { participantId: identity.participantId });
    }),
    getParties: unary(runtime, async (request: ledgerAdmin.GetPartiesRequest, call) => {
      const views: PartyDetailsView[] = await queries.execute(
        new GetPartiesQuery(await call.claims(), request.parties, request.identityProviderId),
      );
      return create(ledgerAdmin.GetPartiesResponseSchema, { partyDetails: views.map(partyDetails) });
    }),
    listKnownParties: unary(runtime, async (request: ledgerAdmin.ListKnownPartiesRequest, call) => {
      const res: { partyDetails: PartyDetailsView[]; nextPageToken: string } = await queries.execute(
        new ListPartiesQuery(
          await call.claims(),
          request.pageSize === 0 ? undefined : request.pageSize,
          request.pageToken,
          request.filterParty,
          request.identityProviderId,
        ),
      );
      return create(ledgerAdmin.ListKnownPartiesResponseSchema, {
        partyDetails: res.partyDetails.map(partyDetails),
        nextPageToken: res.nextPageToken,
      });
    }),
    allocateParty: unary(runtime, async (request: ledgerAdmin.AllocatePartyRequest, call) => {
      const record: PartyRecord = await commands.execute(
        new AllocatePartyCommand(await call.claims(), {
          partyIdHint: request.partyIdHint,
          annotations: request.localMetadata?.annotations ?? {},
          resourceVersion: request.localMetadata?.resourceVersion ?? '',
          identityProviderId: request.identityProviderId,
          synchronizerId: request.synchronizerId,
          userId: request.userId,
        }),
      );
      return create(ledgerAdmin.AllocatePartyResponseSchema, { partyDetails: partyDetails(fullDetails(record)) });
    }),
  };
}
