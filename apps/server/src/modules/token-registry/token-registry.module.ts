import { Module } from '@nestjs/common';
import { TOKEN_REGISTRY_QUERY_HANDLERS } from './queries/token-registry-query.handlers';
import { TokenRegistryController } from './token-registry.controller';
import { TokenRegistryReader } from './token-registry.reader';

/** The token standard's off-ledger registry API: Canton Coin's registry and those of configured instrument admins. */
@Module({
  controllers: [TokenRegistryController],
  providers: [TokenRegistryReader, ...TOKEN_REGISTRY_QUERY_HANDLERS],
})
export class TokenRegistryModule {}
