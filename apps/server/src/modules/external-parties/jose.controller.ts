import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetJwksQuery } from './queries/get-jwks.query';

/** Canton 3.5.10's JOSE service: an external party's public keys as a JWKS. Any authenticated caller (the global guard). */
@Controller('v2/jose')
export class JoseController {
  constructor(private readonly queries: QueryBus) {}

  @Get('jwks/synchronizer/:synchronizer/party/:party')
  jwks(@Param('synchronizer') synchronizer: string, @Param('party') party: string) {
    return this.queries.execute(new GetJwksQuery(synchronizer, party));
  }
}
