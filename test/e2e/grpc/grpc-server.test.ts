import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { credentials, makeGenericClientConstructor, Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import { health, ledgerAdmin, ledgerApi, reflection, serviceDefinition } from '@ledgerline/grpc';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { GrpcTestClient, grpcFailure } from '../../support/grpc-client';

/**
 * The gRPC Ledger API's server on one ledger: bound on the port the system picked (LEDGER_GRPC_PORT=0), VersionService
 * answering what GET /v2/version answers, Canton's auth outcomes in gRPC form, health and server reflection, and an RPC
 * that is not served answering UNIMPLEMENTED with a message.
 */
let ledger: TestLedger;
let address: string;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_GRPC_PORT: '0' });
  address = ledger.grpcAddress!;
});
afterAll(async () => ledger?.close());

describe('gRPC server', () => {
  it('binds the port the system picked and reports it on GET /livez', async () => {
    const livez = await ledger.call('GET', '/livez', undefined, { as: null });
    expect(livez.json).toEqual({ status: 'ok', grpcPort: Number(address.split(':')[1]) });
    expect(Number(address.split(':')[1])).toBeGreaterThan(0);
  });

  it('VersionService reports what GET /v2/version reports', async () => {
    const client = new GrpcTestClient(address, ledgerApi.VersionService, await ledger.token());
    const v = await client.unary<
      typeof ledgerApi.GetLedgerApiVersionRequestSchema,
      typeof ledgerApi.GetLedgerApiVersionResponseSchema
    >('getLedgerApiVersion', {});
    const json = (await ledger.call('GET', '/v2/version')).json;
    expect(v.version).toBe(json.version);
    expect(v.features?.userManagement).toMatchObject(json.features.userManagement);
    expect(v.features?.partyManagement?.maxPartiesPageSize).toBe(json.features.partyManagement.maxPartiesPageSize);
    expect(v.features?.offsetCheckpoint?.maxOffsetCheckpointEmissionDelay?.seconds).toBe(60n);
    expect(v.features?.experimental?.staticTime?.supported).toBe(false);
    client.close();
  });

  it('answers a call without a token UNAUTHENTICATED, redacted as Canton redacts it', async () => {
    const client = new GrpcTestClient(address, ledgerApi.VersionService);
    const f = await grpcFailure(client.unary('getLedgerApiVersion', {}));
    expect(f.code).toBe(16);
    expect(f.message).toMatch(/^An error occurred\. Please contact the operator and inquire about the request /);
    expect(f.errorInfo).toBeUndefined();
    expect(f.requestInfo?.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(f.message).toContain(`with tid ${f.requestInfo!.requestId}`);
    client.close();
  });

  it('answers a bad signature UNAUTHENTICATED and an unknown user PERMISSION_DENIED', async () => {
    const client = new GrpcTestClient(address, ledgerApi.VersionService);
    const bad = (await ledger.token()).slice(0, -4) + 'AAAA';
    expect((await grpcFailure(client.unary('getLedgerApiVersion', {}, { token: bad }))).code).toBe(16);
    const unknown = await ledger.token('nobody-of-this-ledger');
    expect((await grpcFailure(client.unary('getLedgerApiVersion', {}, { token: unknown }))).code).toBe(7);
    client.close();
  });

  it('answers an RPC Ledgerline does not serve UNIMPLEMENTED, naming it', async () => {
    const client = new GrpcTestClient(address, ledgerAdmin.PartyManagementAlphaService, await ledger.token());
    const method = ledgerAdmin.PartyManagementAlphaService.methods.find((m) => m.methodKind === 'unary')!;
    const f = await grpcFailure(client.unary(method.localName, {}));
    expect(f.code).toBe(12);
    expect(f.message).toContain(`com.daml.ledger.api.v2.admin.PartyManagementAlphaService/${method.name}`);
    client.close();
  });

  it('serves grpc.health.v1: SERVING for the server and its services, NOT_FOUND for an unknown one', async () => {
    const client = new GrpcTestClient(address, health.Health);
    const check = (service: string) =>
      client.unary<typeof health.HealthCheckRequestSchema, typeof health.HealthCheckResponseSchema>('check', {
        service,
      });
    expect((await check('')).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    expect((await check('com.daml.ledger.api.v2.StateService')).status).toBe(
      health.HealthCheckResponse_ServingStatus.SERVING,
    );
    expect((await grpcFailure(check('no.such.Service'))).code).toBe(5);
    client.close();
  });

  it('serves grpc.reflection.v1: the services, and descriptors by symbol with their dependencies', async () => {
    const Ctor = makeGenericClientConstructor(serviceDefinition(reflection.ServerReflection), 'ServerReflection');
    const client = new Ctor(address, credentials.createInsecure()) as unknown as {
      serverReflectionInfo(md: Metadata): ClientDuplexStream<unknown, reflection.ServerReflectionResponse>;
      close(): void;
    };
    const ask = (request: Partial<reflection.ServerReflectionRequest>) =>
      new Promise<reflection.ServerReflectionResponse>((resolve, reject) => {
        const call = client.serverReflectionInfo(new Metadata());
        call.once('data', (r) => {
          resolve(r);
          call.end();
        });
        call.once('error', reject);
        call.write({ host: '', ...request, $typeName: 'grpc.reflection.v1.ServerReflectionRequest' });
      });
    const list = await ask({ messageRequest: { case: 'listServices', value: '' } });
    const names =
      list.messageResponse.case === 'listServicesResponse' ? list.messageResponse.value.service.map((s) => s.name) : [];
    for (const expected of [
      'com.daml.ledger.api.v2.CommandService',
      'com.daml.ledger.api.v2.StateService',
      'com.daml.ledger.api.v2.UpdateService',
      'com.daml.ledger.api.v2.admin.UserManagementService',
      'com.daml.ledger.api.v2.testing.TimeService',
      'grpc.health.v1.Health',
    ])
      expect(names).toContain(expected);
    const bySymbol = await ask({
      messageRequest: { case: 'fileContainingSymbol', value: 'com.daml.ledger.api.v2.StateService' },
    });
    expect(bySymbol.messageResponse.case).toBe('fileDescriptorResponse');
    const files =
      bySymbol.messageResponse.case === 'fileDescriptorResponse'
        ? bySymbol.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b))
        : [];
    expect(files[0].name).toBe('com/daml/ledger/api/v2/state_service.proto');
    expect(files[0].service.map((s) => s.name)).toEqual(['StateService']);
    const fileNames = files.map((f) => f.name);
    expect(fileNames).toContain('com/daml/ledger/api/v2/transaction_filter.proto');
    expect(fileNames).toContain('google/protobuf/timestamp.proto');
    const missing = await ask({ messageRequest: { case: 'fileContainingSymbol', value: 'no.such.Symbol' } });
    expect(missing.messageResponse.case).toBe('errorResponse');
    client.close();
  });
});
