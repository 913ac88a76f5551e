import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { ledgerAdmin, ledgerApi } from '@ledgerline/grpc';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { GrpcTestClient, grpcFailure } from '../../support/grpc-client';

/**
 * StateService, PackageService, PartyManagementService and UserManagementService over gRPC on one ledger with the JSON
 * API: the same answers as the JSON operations, the same error codes (the ErrorInfo reason is the JSON `code`, its
 * metadata the JSON context), and Canton's auth outcomes.
 */
let ledger: TestLedger;
let token: string;
const clients: Array<{ close(): void }> = [];

function client<S extends Parameters<typeof makeClient>[0]>(service: S, as?: string | null) {
  return makeClient(service, as);
}
function makeClient(service: ConstructorParameters<typeof GrpcTestClient>[1], as?: string | null) {
  const c = new GrpcTestClient(ledger.grpcAddress!, service, as === null ? undefined : (as ?? token));
  clients.push(c);
  return c;
}
const call = <O extends DescMessage>(c: GrpcTestClient<never>, name: string, req: Record<string, unknown> = {}) =>
  c.unary(name, req as never) as Promise<MessageShape<O>>;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_GRPC_PORT: '0' });
  token = await ledger.token();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await ledger?.close();
});

describe('StateService over gRPC', () => {
  it('answers the ledger end, pruned offsets and connected synchronizers as GET /v2/state/* does', async () => {
    const state = client(ledgerApi.StateService) as GrpcTestClient<never>;
    await ledger.call('POST', '/v2/parties', { partyIdHint: 'state-alice' });
    const end = await call<typeof ledgerApi.GetLedgerEndResponseSchema>(state, 'getLedgerEnd');
    expect(end.offset).toBe(BigInt((await ledger.call('GET', '/v2/state/ledger-end')).json.offset));
    expect(end.offset).toBeGreaterThan(0n);
    const pruned = await call<typeof ledgerApi.GetLatestPrunedOffsetsResponseSchema>(state, 'getLatestPrunedOffsets');
    const prunedJson = (await ledger.call('GET', '/v2/state/latest-pruned-offsets')).json;
    expect(pruned.participantPrunedUpToInclusive).toBe(BigInt(prunedJson.participantPrunedUpToInclusive));
    const syncs = await call<typeof ledgerApi.GetConnectedSynchronizersResponseSchema>(
      state,
      'getConnectedSynchronizers',
    );
    const syncsJson = (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers;
    expect(
      syncs.connectedSynchronizers.map((s) => ({
        synchronizerAlias: s.synchronizerAlias,
        synchronizerId: s.synchronizerId,
        permission: `PARTICIPANT_PERMISSION_${ledgerApi.ParticipantPermission[s.permission]}`,
      })),
    ).toEqual(syncsJson);
  });
});

describe('PartyManagementService over gRPC', () => {
  it('allocates a party the JSON API then lists, and lists what the JSON API lists', async () => {
    const parties = client(ledgerAdmin.PartyManagementService) as GrpcTestClient<never>;
    const id = await call<typeof ledgerAdmin.GetParticipantIdResponseSchema>(parties, 'getParticipantId');
    expect(id.participantId).toBe(ledger.participantId);
    const allocated = await call<typeof ledgerAdmin.AllocatePartyResponseSchema>(parties, 'allocateParty', {
      partyIdHint: 'grpc-bob',
      localMetadata: { annotations: { team: 'grpc' } },
    });
    const party = allocated.partyDetails!.party;
    expect(party).toMatch(/^grpc-bob::1220[0-9a-f]{64}$/);
    const viaJson = (await ledger.call('GET', `/v2/parties/${encodeURIComponent(party)}`)).json.partyDetails[0];
    expect(viaJson).toMatchObject({
      party,
      isLocal: true,
      localMetadata: {
        annotations: { team: 'grpc' },
        resourceVersion: allocated.partyDetails!.localMetadata!.resourceVersion,
      },
    });
    const got = await call<typeof ledgerAdmin.GetPartiesResponseSchema>(parties, 'getParties', { parties: [party] });
    expect(got.partyDetails.map((p) => p.party)).toEqual([party]);
    const listed = await call<typeof ledgerAdmin.ListKnownPartiesResponseSchema>(parties, 'listKnownParties');
    const listedJson = (await ledger.call('GET', '/v2/parties')).json.partyDetails.map(
      (p: { party: string }) => p.party,
    );
    expect(listed.partyDetails.map((p) => p.party)).toEqual(listedJson);
    expect(listedJson).toContain(party);
  });

  it('refuses what the JSON API refuses, with its code as the ErrorInfo reason', async () => {
    const parties = client(ledgerAdmin.PartyManagementService) as GrpcTestClient<never>;
    await call(parties, 'allocateParty', { partyIdHint: 'grpc-dup' });
    const f = await grpcFailure(call(parties, 'allocateParty', { partyIdHint: 'grpc-dup' }));
    const json = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'grpc-dup' })).json;
    expect(f.errorInfo?.reason).toBe(json.code);
    expect(f.code).toBe(json.grpcCodeValue);
    expect(f.message).toBe(`${json.code}(${json.errorCategory},0): ${json.cause}`);
    const without = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'tid'));
    expect(without(f.errorInfo!.metadata)).toEqual(without(json.context));
    expect(f.errorInfo!.metadata.tid).toBe(f.requestInfo?.requestId);
    const bad = await grpcFailure(call(parties, 'allocateParty', { partyIdHint: 'not a valid hint!' }));
    const badJson = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'not a valid hint!' })).json;
    expect(bad.errorInfo?.reason).toBe(badJson.code);
    expect(bad.code).toBe(3);
  });

  it('denies a user without admin rights PERMISSION_DENIED, redacted', async () => {
    await ledger.call('POST', '/v2/users', { user: { id: 'grpc-plain' }, rights: [] });
    const parties = client(
      ledgerAdmin.PartyManagementService,
      await ledger.token('grpc-plain'),
    ) as GrpcTestClient<never>;
    const f = await grpcFailure(call(parties, 'allocateParty', { partyIdHint: 'grpc-nope' }));
    expect(f.code).toBe(7);
    expect(f.errorInfo).toBeUndefined();
    expect(f.message).toMatch(/^An error occurred\. Please contact the operator/);
  });
});

describe('UserManagementService over gRPC', () => {
  it('creates, reads, lists, grants, revokes and deletes users as /v2/users does', async () => {
    const users = client(ledgerAdmin.UserManagementService) as GrpcTestClient<never>;
    const party = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'grpc-carol' })).json.partyDetails.party;
    const created = await call<typeof ledgerAdmin.CreateUserResponseSchema>(users, 'createUser', {
      user: { id: 'grpc-carol', primaryParty: party, metadata: { annotations: { k: 'v' } } },
      rights: [{ kind: { case: 'canActAs', value: { party } } }],
    });
    expect(created.user).toMatchObject({ id: 'grpc-carol', primaryParty: party, isDeactivated: false });
    const json = (await ledger.call('GET', '/v2/users/grpc-carol')).json.user;
    expect(json).toMatchObject({ id: 'grpc-carol', primaryParty: party, metadata: { annotations: { k: 'v' } } });
    const rights = await call<typeof ledgerAdmin.ListUserRightsResponseSchema>(users, 'listUserRights', {
      userId: 'grpc-carol',
    });
    expect(rights.rights.map((r) => r.kind)).toEqual([{ case: 'canActAs', value: expect.objectContaining({ party }) }]);
    const granted = await call<typeof ledgerAdmin.GrantUserRightsResponseSchema>(users, 'grantUserRights', {
      userId: 'grpc-carol',
      rights: [{ kind: { case: 'canReadAsAnyParty', value: {} } }, { kind: { case: 'canActAs', value: { party } } }],
    });
    expect(granted.newlyGrantedRights.map((r) => r.kind.case)).toEqual(['canReadAsAnyParty']);
    const jsonRights = (await ledger.call('GET', '/v2/users/grpc-carol/rights')).json.rights;
    expect(jsonRights).toHaveLength(2);
    const revoked = await call<typeof ledgerAdmin.RevokeUserRightsResponseSchema>(users, 'revokeUserRights', {
      userId: 'grpc-carol',
      rights: [{ kind: { case: 'canReadAsAnyParty', value: {} } }],
    });
    expect(revoked.newlyRevokedRights.map((r) => r.kind.case)).toEqual(['canReadAsAnyParty']);
    const listed = await call<typeof ledgerAdmin.ListUsersResponseSchema>(users, 'listUsers');
    const listedJson = (await ledger.call('GET', '/v2/users')).json.users.map((u: { id: string }) => u.id);
    expect(listed.users.map((u) => u.id)).toEqual(listedJson);
    // The caller's own user by an empty id (Canton's GetUser, GET /v2/authenticated-user).
    const me = await call<typeof ledgerAdmin.GetUserResponseSchema>(users, 'getUser', { userId: '' });
    expect(me.user?.id).toBe(ledger.config.adminUser);
    await call(users, 'deleteUser', { userId: 'grpc-carol' });
    expect((await ledger.call('GET', '/v2/users/grpc-carol')).status).toBe(404);
    const missing = await grpcFailure(call(users, 'getUser', { userId: 'grpc-carol' }));
    const missingJson = (await ledger.call('GET', '/v2/users/grpc-carol')).json;
    expect(missing.errorInfo?.reason).toBe(missingJson.code);
    expect(missing.code).toBe(5);
  });
});

describe('PackageService over gRPC', () => {
  it('lists the packages GET /v2/packages lists, and answers an unknown package NOT_FOUND', async () => {
    const packages = client(ledgerApi.PackageService) as GrpcTestClient<never>;
    const listed = await call<typeof ledgerApi.ListPackagesResponseSchema>(packages, 'listPackages');
    expect(listed.packageIds).toEqual((await ledger.call('GET', '/v2/packages')).json.packageIds);
    const unknown = 'a'.repeat(64);
    const f = await grpcFailure(call(packages, 'getPackage', { packageId: unknown }));
    const json = (await ledger.call('GET', `/v2/packages/${unknown}`)).json;
    expect(f.errorInfo?.reason).toBe(json.code);
    expect(f.code).toBe(json.grpcCodeValue);
    const status = await call<typeof ledgerApi.GetPackageStatusResponseSchema>(packages, 'getPackageStatus', {
      packageId: unknown,
    });
    expect(status.packageStatus).toBe(ledgerApi.PackageStatus.UNSPECIFIED);
  });
});
