import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { decodePageSize, findInstrument, instrumentPage } from '@ledgerline/domain';
import { TokenRegistryReader } from '../token-registry.reader';
import {
  GetAllocationContextQuery,
  GetAllocationFactoryQuery,
  GetInstrumentQuery,
  GetRegistryInfoQuery,
  GetTransferFactoryQuery,
  GetTransferInstructionContextQuery,
  ListInstrumentsQuery,
} from './token-registry.queries';

@QueryHandler(GetRegistryInfoQuery)
export class GetRegistryInfoHandler implements IQueryHandler<GetRegistryInfoQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  execute({ admin }: GetRegistryInfoQuery) {
    return this.reader.info(admin);
  }
}

@QueryHandler(ListInstrumentsQuery)
export class ListInstrumentsHandler implements IQueryHandler<ListInstrumentsQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  async execute({ admin, pageSize, pageToken }: ListInstrumentsQuery) {
    const size = decodePageSize(pageSize);
    return instrumentPage(
      await this.reader.instruments(admin),
      size,
      typeof pageToken === 'string' && pageToken !== '' ? pageToken : undefined,
    );
  }
}

@QueryHandler(GetInstrumentQuery)
export class GetInstrumentHandler implements IQueryHandler<GetInstrumentQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  async execute({ admin, instrumentId }: GetInstrumentQuery) {
    return findInstrument(await this.reader.instruments(admin), instrumentId);
  }
}

@QueryHandler(GetTransferFactoryQuery)
export class GetTransferFactoryHandler implements IQueryHandler<GetTransferFactoryQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  execute({ admin, body }: GetTransferFactoryQuery) {
    return this.reader.transferFactory(admin, body);
  }
}

@QueryHandler(GetTransferInstructionContextQuery)
export class GetTransferInstructionContextHandler implements IQueryHandler<GetTransferInstructionContextQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  execute({ admin, transferInstructionId, choice, body }: GetTransferInstructionContextQuery) {
    return this.reader.transferInstructionContext(admin, transferInstructionId, choice, body);
  }
}

@QueryHandler(GetAllocationFactoryQuery)
export class GetAllocationFactoryHandler implements IQueryHandler<GetAllocationFactoryQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  execute({ admin, body }: GetAllocationFactoryQuery) {
    return this.reader.allocationFactory(admin, body);
  }
}

@QueryHandler(GetAllocationContextQuery)
export class GetAllocationContextHandler implements IQueryHandler<GetAllocationContextQuery> {
  constructor(private readonly reader: TokenRegistryReader) {}
  execute({ admin, allocationId, choice, body }: GetAllocationContextQuery) {
    return this.reader.allocationContext(admin, allocationId, choice, body);
  }
}

export const TOKEN_REGISTRY_QUERY_HANDLERS = [
  GetRegistryInfoHandler,
  ListInstrumentsHandler,
  GetInstrumentHandler,
  GetTransferFactoryHandler,
  GetTransferInstructionContextHandler,
  GetAllocationFactoryHandler,
  GetAllocationContextHandler,
];
