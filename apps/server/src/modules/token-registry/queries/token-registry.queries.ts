import type { AllocationChoice, TransferInstructionChoice } from '../token-registry.reader';

/** `admin`: the admin of /token-registries/<admin>/registry/…; undefined at /registry/… (the default registry). */
export class GetRegistryInfoQuery {
  constructor(readonly admin: string | undefined) {}
}

export class ListInstrumentsQuery {
  constructor(
    readonly admin: string | undefined,
    readonly pageSize: unknown,
    readonly pageToken: unknown,
  ) {}
}

export class GetInstrumentQuery {
  constructor(
    readonly admin: string | undefined,
    readonly instrumentId: string,
  ) {}
}

export class GetTransferFactoryQuery {
  constructor(
    readonly admin: string | undefined,
    readonly body: unknown,
  ) {}
}

export class GetTransferInstructionContextQuery {
  constructor(
    readonly admin: string | undefined,
    readonly transferInstructionId: string,
    readonly choice: TransferInstructionChoice,
    readonly body: unknown,
  ) {}
}

export class GetAllocationFactoryQuery {
  constructor(
    readonly admin: string | undefined,
    readonly body: unknown,
  ) {}
}

export class GetAllocationContextQuery {
  constructor(
    readonly admin: string | undefined,
    readonly allocationId: string,
    readonly choice: AllocationChoice,
    readonly body: unknown,
  ) {}
}
