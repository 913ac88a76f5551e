import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  idpConfigNotFound,
  requireIdentityProviderId,
  requireParticipantAdmin,
  type IdentityProviderConfig,
} from '@ledgerline/domain';
import { IdentityProvidersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { GetIdentityProviderQuery, ListIdentityProvidersQuery } from './identity-provider.queries';

@QueryHandler(GetIdentityProviderQuery)
export class GetIdentityProviderHandler implements IQueryHandler<GetIdentityProviderQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly idps: IdentityProvidersRepository,
  ) {}

  async execute({ claims, id }: GetIdentityProviderQuery): Promise<IdentityProviderConfig> {
    requireParticipantAdmin(claims);
    requireIdentityProviderId(id);
    const config = await this.idps.get(this.runtime.db, id);
    if (!config) throw idpConfigNotFound('Getting identity provider config', id);
    return config;
  }
}

@QueryHandler(ListIdentityProvidersQuery)
export class ListIdentityProvidersHandler implements IQueryHandler<ListIdentityProvidersQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly idps: IdentityProvidersRepository,
  ) {}

  async execute({ claims }: ListIdentityProvidersQuery): Promise<IdentityProviderConfig[]> {
    requireParticipantAdmin(claims);
    return this.idps.list(this.runtime.db);
  }
}
