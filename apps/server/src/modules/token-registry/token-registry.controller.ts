import { Body, Controller, Get, Param, Query, UseFilters } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { PostJson } from '../../http/routes';
import { TokenRegistryErrorFilter } from './token-registry-error.filter';
import {
  GetAllocationContextQuery,
  GetAllocationFactoryQuery,
  GetInstrumentQuery,
  GetRegistryInfoQuery,
  GetTransferFactoryQuery,
  GetTransferInstructionContextQuery,
  ListInstrumentsQuery,
} from './queries/token-registry.queries';

/**
 * Each route at /registry/… (the default registry), at /api/validator/v0/scan-proxy/registry/… (the same: where a
 * Splice validator proxies scan's registry, the wallet SDK's usual registry URL) and at
 * /token-registries/:admin/registry/… (the admin's).
 */
const both = (path: string) => [
  `registry/${path}`,
  `api/validator/v0/scan-proxy/registry/${path}`,
  `token-registries/:admin/registry/${path}`,
];

/**
 * The token standard's off-ledger registry API (splice's token-standard `token-metadata-v1.yaml`,
 * `transfer-instruction-v1.yaml`, `allocation-instruction-v1.yaml`, `allocation-v1.yaml`): metadata, the transfer and
 * allocation factories and the choice contexts of transfer instructions and allocations. Authenticated like the rest of
 * the API; any user may read it, as a registry is public.
 */
@Controller()
@UseFilters(TokenRegistryErrorFilter)
export class TokenRegistryController {
  constructor(private readonly queries: QueryBus) {}

  @Get(both('metadata/v1/info'))
  info(@Param('admin') admin?: string) {
    return this.queries.execute(new GetRegistryInfoQuery(admin));
  }

  @Get(both('metadata/v1/instruments'))
  instruments(@Query() q: Record<string, unknown>, @Param('admin') admin?: string) {
    return this.queries.execute(new ListInstrumentsQuery(admin, q.pageSize, q.pageToken));
  }

  @Get(both('metadata/v1/instruments/:instrumentId'))
  instrument(@Param('instrumentId') instrumentId: string, @Param('admin') admin?: string) {
    return this.queries.execute(new GetInstrumentQuery(admin, instrumentId));
  }

  @PostJson(both('transfer-instruction/v1/transfer-factory'))
  transferFactory(@Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetTransferFactoryQuery(admin, body));
  }

  @PostJson(both('transfer-instruction/v1/:transferInstructionId/choice-contexts/accept'))
  acceptContext(@Param('transferInstructionId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetTransferInstructionContextQuery(admin, id, 'accept', body));
  }

  @PostJson(both('transfer-instruction/v1/:transferInstructionId/choice-contexts/reject'))
  rejectContext(@Param('transferInstructionId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetTransferInstructionContextQuery(admin, id, 'reject', body));
  }

  @PostJson(both('transfer-instruction/v1/:transferInstructionId/choice-contexts/withdraw'))
  withdrawContext(@Param('transferInstructionId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetTransferInstructionContextQuery(admin, id, 'withdraw', body));
  }

  @PostJson(both('allocation-instruction/v1/allocation-factory'))
  allocationFactory(@Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetAllocationFactoryQuery(admin, body));
  }

  @PostJson(both('allocations/v1/:allocationId/choice-contexts/execute-transfer'))
  executeTransferContext(@Param('allocationId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetAllocationContextQuery(admin, id, 'execute-transfer', body));
  }

  @PostJson(both('allocations/v1/:allocationId/choice-contexts/withdraw'))
  allocationWithdrawContext(@Param('allocationId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetAllocationContextQuery(admin, id, 'withdraw', body));
  }

  @PostJson(both('allocations/v1/:allocationId/choice-contexts/cancel'))
  allocationCancelContext(@Param('allocationId') id: string, @Body() body: unknown, @Param('admin') admin?: string) {
    return this.queries.execute(new GetAllocationContextQuery(admin, id, 'cancel', body));
  }
}
