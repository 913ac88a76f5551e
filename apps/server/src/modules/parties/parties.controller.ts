import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims, PartyRecord } from '@ledgerline/domain';
import { fullDetails } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  allocatePartyRequestSchema,
  int32Query,
  listQuery,
  partyDetailsToJs,
  stringQuery,
  updatePartyDetailsFromJs,
  type RawPatchBody,
  updatePartyDetailsRequestSchema,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';
import { AllocatePartyCommand, UpdatePartyDetailsCommand } from './commands/party.commands';
import { GetPartiesQuery, ListPartiesQuery } from './queries/party.queries';

interface AllocateBody {
  partyIdHint?: string;
  localMetadata?: { resourceVersion?: string; annotations?: Record<string, string> } | null;
  identityProviderId?: string;
  synchronizerId?: string;
  userId?: string;
}

const detailsOf = (r: PartyRecord) => partyDetailsToJs(fullDetails(r));

/**
 * Party management: thin HTTP mapping onto commands and queries (Canton's JsPartyManagementService, ledger-json-api:
 * json/v2/, over ApiPartyManagementService, ledger-api-core: platform/apiserver/services/admin/).
 */
@Controller('v2/parties')
export class PartiesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly identity: ParticipantIdentity,
  ) {}

  @PostJson()
  @RouteSchema({ body: allocatePartyRequestSchema })
  async allocate(@CurrentClaims() claims: Claims, @Body() body: AllocateBody | undefined) {
    const record: PartyRecord = await this.commands.execute(
      new AllocatePartyCommand(claims, {
        partyIdHint: body?.partyIdHint ?? '',
        annotations: body?.localMetadata?.annotations ?? {},
        resourceVersion: body?.localMetadata?.resourceVersion ?? '',
        identityProviderId: body?.identityProviderId ?? '',
        synchronizerId: body?.synchronizerId ?? '',
        userId: body?.userId ?? '',
      }),
    );
    return { partyDetails: detailsOf(record) };
  }

  @Get()
  async list(@CurrentClaims() claims: Claims, @Query() q: Record<string, unknown>) {
    const res = await this.queries.execute(
      new ListPartiesQuery(
        claims,
        int32Query('pageSize', q.pageSize),
        stringQuery('pageToken', q.pageToken),
        stringQuery('filter-party', q['filter-party']),
        stringQuery('identity-provider-id', q['identity-provider-id']),
      ),
    );
    return { partyDetails: res.partyDetails.map(partyDetailsToJs), nextPageToken: res.nextPageToken };
  }

  @Get('participant-id')
  participantId() {
    return { participantId: this.identity.participantId };
  }

  @Get(':party')
  async get(@CurrentClaims() claims: Claims, @Param('party') party: string, @Query() q: Record<string, unknown>) {
    const parties = [party, ...listQuery(q.parties)];
    const views = await this.queries.execute(
      new GetPartiesQuery(claims, parties, stringQuery('identity-provider-id', q['identity-provider-id'])),
    );
    return { partyDetails: views.map(partyDetailsToJs) };
  }

  @Patch(':party')
  @RouteSchema({ body: updatePartyDetailsRequestSchema })
  async update(@CurrentClaims() claims: Claims, @Param('party') party: string, @Body() body: RawPatchBody | undefined) {
    const record: PartyRecord = await this.commands.execute(
      new UpdatePartyDetailsCommand(claims, party, updatePartyDetailsFromJs(body)),
    );
    return { partyDetails: detailsOf(record) };
  }
}
