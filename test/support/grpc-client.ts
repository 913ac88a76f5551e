import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type Client,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import {
  create,
  fromBinary,
  type DescMessage,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { googleRpc, serviceDefinition } from '@ledgerline/grpc';

/** A typed @grpc/grpc-js client of one generated service: unary calls as promises, server streams as async iterables. */
export class GrpcTestClient<S extends DescService> {
  private readonly client: Client & Record<string, (...args: unknown[]) => unknown>;

  constructor(
    readonly address: string,
    readonly service: S,
    private readonly token?: string,
  ) {
    const Ctor = makeGenericClientConstructor(serviceDefinition(service), service.name);
    this.client = new Ctor(address, credentials.createInsecure()) as never;
  }

  private metadata(token = this.token): Metadata {
    const m = new Metadata();
    if (token !== undefined) m.set('authorization', `Bearer ${token}`);
    return m;
  }

  private method(name: string) {
    const m = this.service.methods.find((x) => x.localName === name || x.name === name);
    if (!m) throw new Error(`no method ${name} in ${this.service.typeName}`);
    return m;
  }

  unary<I extends DescMessage, O extends DescMessage>(
    name: string,
    request: MessageInitShape<I>,
    opts: { token?: string | null } = {},
  ): Promise<MessageShape<O>> {
    const m = this.method(name);
    const message = create(m.input, request as never);
    const md = this.metadata(opts.token === null ? undefined : (opts.token ?? this.token));
    return new Promise((resolve, reject) =>
      (
        this.client[m.localName] as (r: unknown, md: Metadata, cb: (e: ServiceError | null, v: unknown) => void) => void
      )(message, md, (e, v) => (e ? reject(e) : resolve(v as MessageShape<O>))),
    );
  }

  /** A server stream, read to its end (or `take` messages, then cancelled). */
  async stream<O extends DescMessage>(
    name: string,
    request: Record<string, unknown>,
    opts: { token?: string | null; take?: number } = {},
  ): Promise<MessageShape<O>[]> {
    const m = this.method(name);
    const md = this.metadata(opts.token === null ? undefined : (opts.token ?? this.token));
    const call = (this.client[m.localName] as (r: unknown, md: Metadata) => ClientReadableStream<MessageShape<O>>)(
      create(m.input, request as never),
      md,
    );
    const out: MessageShape<O>[] = [];
    try {
      for await (const message of call) {
        out.push(message as MessageShape<O>);
        if (opts.take !== undefined && out.length >= opts.take) {
          call.cancel();
          break;
        }
      }
    } catch (e) {
      if ((e as ServiceError).code === 1 && opts.take !== undefined) return out;
      throw e;
    }
    return out;
  }

  /** The raw stream (for tests of flow control and cancellation). */
  open(name: string, request: Record<string, unknown>): ClientReadableStream<unknown> {
    const m = this.method(name);
    return (this.client[m.localName] as (r: unknown, md: Metadata) => ClientReadableStream<unknown>)(
      create(m.input, request as never),
      this.metadata(),
    );
  }

  close(): void {
    this.client.close();
  }
}

/** What a failed call carried: the status code and message, and the google.rpc.Status details decoded. */
export function statusDetails(e: unknown) {
  const err = e as ServiceError;
  const bin = err.metadata?.get('grpc-status-details-bin')[0];
  const status = bin ? fromBinary(googleRpc.StatusSchema, bin as Buffer) : undefined;
  const find = <D extends DescMessage>(schema: D) =>
    status?.details.map((d) => anyUnpack(d, schema)).find((x) => x !== undefined) as MessageShape<D> | undefined;
  return {
    code: err.code,
    message: err.details,
    status,
    errorInfo: find(googleRpc.ErrorInfoSchema),
    requestInfo: find(googleRpc.RequestInfoSchema),
    retryInfo: find(googleRpc.RetryInfoSchema),
    resourceInfos: (status?.details ?? [])
      .map((d) => anyUnpack(d, googleRpc.ResourceInfoSchema))
      .filter((x) => x !== undefined),
  };
}

/** Expects `p` to fail and returns what the failure carried. */
export async function grpcFailure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if ((e as ServiceError).code === undefined) throw e;
    return statusDetails(e);
  }
  throw new Error('expected the call to fail');
}
