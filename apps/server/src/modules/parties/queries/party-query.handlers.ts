import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  authorizeGetParties,
  authorizeListParties,
  blindPartyDetails,
  decodePageToken,
  encodePageToken,
  identityProviderNotFoundArgument,
  invalidArgument,
  requireParty,
  validateIdentityProviderIdField,
  type PartyDetailsView,
} from '@ledgerline/domain';
import { IdentityProvidersRepository, PartiesRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { GetPartiesQuery, ListPartiesQuery } from './party.queries';

/** Canton's default max-parties-page-size. */
export const MAX_PARTIES_PAGE_SIZE = 10_000;

@QueryHandler(GetPartiesQuery)
export class GetPartiesHandler implements IQueryHandler<GetPartiesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly parties: PartiesRepository,
    private readonly idps: IdentityProvidersRepository,
  ) {}

  async execute({ claims, parties, identityProviderId }: GetPartiesQuery): Promise<PartyDetailsView[]> {
    const idp = authorizeGetParties(claims, parties, identityProviderId);
    parties.forEach(requireParty);
    validateIdentityProviderIdField(idp);
    if (!(await this.idps.exists(this.runtime.db, idp))) throw identityProviderNotFoundArgument(idp);
    const records = await this.parties.getMany(this.runtime.db, parties);
    return records.map((r) => blindPartyDetails(r, idp));
  }
}

@QueryHandler(ListPartiesQuery)
export class ListPartiesHandler implements IQueryHandler<ListPartiesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly parties: PartiesRepository,
    private readonly idps: IdentityProvidersRepository,
  ) {}

  async execute({ claims, pageSize, pageToken, filterParty, identityProviderId }: ListPartiesQuery) {
    const idp = authorizeListParties(claims, identityProviderId);
    validateIdentityProviderIdField(idp);
    if (pageSize !== undefined && (pageSize < 0 || pageSize > MAX_PARTIES_PAGE_SIZE)) {
      throw invalidArgument(`Page size must be non-negative and not greater than ${MAX_PARTIES_PAGE_SIZE}`);
    }
    const size = pageSize || MAX_PARTIES_PAGE_SIZE;
    let afterParty = '';
    if (pageToken) {
      afterParty = decodePageToken(pageToken);
    }
    if (!(await this.idps.exists(this.runtime.db, idp))) throw identityProviderNotFoundArgument(idp);
    const records = await this.parties.list(this.runtime.db, {
      afterParty,
      limit: size,
      contains: filterParty || undefined,
    });
    const nextPageToken = records.length === size ? encodePageToken(records[records.length - 1].party) : '';
    return { partyDetails: records.map((r) => blindPartyDetails(r, idp)), nextPageToken };
  }
}
