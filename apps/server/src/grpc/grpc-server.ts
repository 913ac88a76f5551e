import { Server, ServerCredentials, type UntypedHandleCall } from '@grpc/grpc-js';
import type { INestApplicationContext } from '@nestjs/common';
import type { DescService } from '@bufbuild/protobuf';
import {
  ALL_FILES,
  healthImplementation,
  ReflectionIndex,
  reflectionImplementation,
  serviceDefinition,
} from '@ledgerline/grpc';
import { isMigrated } from '@ledgerline/store';
import type { LedgerRuntime } from '../infrastructure/runtime';
import { unimplemented } from './grpc-call';
import { ledgerApiServices } from './ledger-api-services';

/** Canton's default inbound message limit of the Ledger API (`max-inbound-message-size`, 10 MiB). */
export const GRPC_MAX_INBOUND_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Keep-alive as Canton's Ledger API server defaults it (`keep-alive-server`): a ping after 40 s without activity, the
 * connection dropped when it is not answered within 20 s; a client may ping at most every 20 s.
 */
export const GRPC_KEEPALIVE = { timeMs: 40_000, timeoutMs: 20_000, permitTimeMs: 20_000 };

const HEALTH = 'grpc.health.v1.Health';
const REFLECTION = 'grpc.reflection.v1.ServerReflection';
const REFLECTION_ALPHA = 'grpc.reflection.v1alpha.ServerReflection';

export interface GrpcLedgerApi {
  /** The port bound (LEDGER_GRPC_PORT, or the one the system chose for 0). */
  port: number;
  /** Stops accepting calls and waits for the running ones (at most `graceMs`, then cancels them). */
  close(graceMs?: number): Promise<void>;
}

/**
 * The gRPC Ledger API on `host:port`: every service of the wire contract (libs/grpc/proto), each RPC either mapped to the
 * commands and queries the JSON controllers dispatch (ledger-api-services.ts) or answered UNIMPLEMENTED with a message;
 * plus health and server reflection. `app` is the started Nest application whose providers the services use.
 */
export async function startGrpcServer(
  app: INestApplicationContext,
  runtime: LedgerRuntime,
  address: { host: string; port: number },
): Promise<GrpcLedgerApi> {
  const server = new Server({
    'grpc.max_receive_message_length': GRPC_MAX_INBOUND_MESSAGE_BYTES,
    'grpc.keepalive_time_ms': GRPC_KEEPALIVE.timeMs,
    'grpc.keepalive_timeout_ms': GRPC_KEEPALIVE.timeoutMs,
    'grpc.http2.min_ping_interval_without_data_ms': GRPC_KEEPALIVE.permitTimeMs,
  });
  const implemented = ledgerApiServices(app, runtime);
  const services: DescService[] = ALL_FILES.flatMap((f) => f.services).filter(
    (s) => s.typeName !== REFLECTION_ALPHA && s.typeName !== REFLECTION && s.typeName !== HEALTH,
  );
  const byName = new Map(services.map((s) => [s.typeName, s]));
  for (const name of Object.keys(implemented))
    if (!byName.has(name)) throw new Error(`gRPC: no service ${name} in the wire contract`);
  for (const service of services) {
    const handlers = implemented[service.typeName] ?? {};
    const implementation: Record<string, UntypedHandleCall> = {};
    for (const method of service.methods) {
      implementation[method.localName] = handlers[method.localName] ?? unimplemented(service.typeName, method.name);
    }
    for (const name of Object.keys(handlers))
      if (!service.methods.some((m) => m.localName === name))
        throw new Error(`gRPC: no method ${service.typeName}.${name}`);
    server.addService(serviceDefinition(service), implementation);
  }
  const served = [...services.map((s) => s.typeName), HEALTH, REFLECTION];
  const index = new ReflectionIndex(ALL_FILES, served);
  const own = (name: string) => ALL_FILES.flatMap((f) => f.services).find((s) => s.typeName === name)!;
  server.addService(
    serviceDefinition(own(HEALTH)),
    healthImplementation(served, () => isMigrated(runtime.database.pool)),
  );
  server.addService(serviceDefinition(own(REFLECTION)), reflectionImplementation(index));
  server.addService(serviceDefinition(own(REFLECTION_ALPHA)), reflectionImplementation(index, true));

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${address.host}:${address.port}`, ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    port,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
