/**
 * The gRPC Ledger API's wire contract and serving machinery: the messages and services generated from libs/grpc/proto
 * (`npm run proto:generate`), the adapter that serves them with @grpc/grpc-js, Canton's error statuses, health and
 * server reflection. No Ledgerline rule lives here: apps/server/src/grpc maps each RPC to the server's commands and
 * queries.
 */
export * as ledgerApi from './gen/com.daml.ledger.api.v2';
export * as ledgerAdmin from './gen/com.daml.ledger.api.v2.admin';
export * as ledgerInteractive from './gen/com.daml.ledger.api.v2.interactive';
export * as ledgerInteractiveTransaction from './gen/com.daml.ledger.api.v2.interactive.transaction.v1';
export * as ledgerTesting from './gen/com.daml.ledger.api.v2.testing';
export * as googleRpc from './gen/google.rpc';
export * as health from './gen/grpc.health.v1';
export * as reflection from './gen/grpc.reflection.v1';
export * as reflectionAlpha from './gen/grpc.reflection.v1alpha';
export { ALL_FILES } from './gen/files';
export { serviceDefinition } from './service-definition';
export { grpcErrorOf, grpcStatusOf, type GrpcErrorContext } from './error-status';
export { ReflectionIndex, reflectionImplementation } from './reflection';
export { healthImplementation } from './health';
