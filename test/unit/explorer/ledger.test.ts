import { describe, expect, it } from 'vitest';
import {
  accessOf,
  actingParties,
  checkpointOf,
  readersFor,
  shortParty,
  summarize,
  updateFormat,
  updateOf,
  type Right,
} from '../../../apps/explorer/src/ledger';
import { claimsOf, tokenProblem } from '../../../apps/explorer/src/token';

const ALICE = `alice::1220${'ab'.repeat(32)}`;
const BOB = `bob::1220${'cd'.repeat(32)}`;
const right = (kind: string, party?: string): Right => ({ kind: { [kind]: { value: party ? { party } : {} } } });

describe('what the explorer reads of a user and asks of the ledger', () => {
  it('reads as any party only with CanReadAsAnyParty or CanActAsAnyParty: administering is not reading', () => {
    expect(accessOf([right('ParticipantAdmin')])).toEqual({
      admin: true,
      identityProviderAdmin: false,
      readAny: false,
      parties: [],
    });
    expect(accessOf([right('CanReadAsAnyParty')]).readAny).toBe(true);
    expect(accessOf([right('CanActAsAnyParty')]).readAny).toBe(true);
    expect(accessOf([right('CanExecuteAsAnyParty')]).readAny).toBe(false);
    expect(
      accessOf([right('CanReadAs', BOB), right('CanActAs', ALICE), right('CanExecuteAs', 'carol::1220')]).parties,
    ).toEqual([ALICE, BOB]);
    expect(actingParties([right('CanReadAs', BOB), right('CanActAs', ALICE), right('CanExecuteAs', BOB)])).toEqual([
      ALICE,
      BOB,
    ]);
  });

  it('asks for every party, the readable ones, or the filtered one; none when the user reads no party', () => {
    const any = accessOf([right('CanReadAsAnyParty')]);
    expect(readersFor(any)).toEqual({ any: true });
    expect(readersFor(any, ALICE)).toEqual({ any: false, parties: [ALICE] });
    expect(readersFor(accessOf([right('CanReadAs', BOB)]))).toEqual({ any: false, parties: [BOB] });
    expect(readersFor(accessOf([right('ParticipantAdmin')]))).toBeNull();
    const f = updateFormat({ any: false, parties: [ALICE] }) as any;
    expect(Object.keys(f.includeTransactions.eventFormat.filtersByParty)).toEqual([ALICE]);
    expect(f.includeTopologyEvents).toEqual({ includeParticipantAuthorizationEvents: { parties: [ALICE] } });
    expect((updateFormat({ any: true }) as any).includeReassignments.filtersForAnyParty).toBeDefined();
  });

  it('reads updates and checkpoints of the 3.5 JSON encoding, and summarizes a transaction for a list row', () => {
    const created = {
      offset: 5,
      nodeId: 0,
      contractId: '00aa',
      templateId: 'pkg:Main:Asset',
      packageName: 'p',
      createArgument: {},
      signatories: [ALICE],
      observers: [BOB],
      witnessParties: [ALICE, BOB],
      createdAt: '',
    };
    const archived = {
      offset: 5,
      nodeId: 1,
      contractId: '00bb',
      templateId: 'pkg:Main:Asset',
      packageName: 'p',
      witnessParties: [ALICE],
    };
    const u = updateOf({
      update: {
        Transaction: {
          value: {
            updateId: 'u5',
            offset: 5,
            recordTime: 't',
            effectiveAt: 't',
            synchronizerId: 's',
            events: [{ CreatedEvent: created }, { ArchivedEvent: archived }],
          },
        },
      },
    })!;
    expect(u).toMatchObject({ kind: 'Transaction', offset: 5, updateId: 'u5' });
    expect(summarize(u)).toEqual({ what: '1 created, 1 archived', templates: ['Main:Asset'], parties: [ALICE, BOB] });
    expect(updateOf({ update: { OffsetCheckpoint: { value: { offset: 9, synchronizerTimes: [] } } } })).toBeNull();
    expect(checkpointOf({ update: { OffsetCheckpoint: { value: { offset: 9, synchronizerTimes: [] } } } })).toBe(9);
    const topology = updateOf({
      update: {
        TopologyTransaction: {
          value: {
            updateId: 'u6',
            offset: 6,
            recordTime: 't',
            synchronizerId: 's',
            events: [{ event: { ParticipantAuthorizationAdded: { value: { partyId: ALICE, participantId: 'p' } } } }],
          },
        },
      },
    })!;
    expect(summarize(topology)).toEqual({ what: '1 authorization added', templates: [], parties: [ALICE] });
    expect(shortParty(ALICE)).toBe('alice::1220abab…');
  });

  it('reads a token’s expiry before sending it anywhere', () => {
    const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
    expect(claimsOf(jwt({ sub: 'u', exp: 10 }))).toEqual({ sub: 'u', exp: 10 });
    expect(tokenProblem(jwt({ exp: 10 }), 11_000)).toMatch(/^This token expired at /);
    expect(tokenProblem(jwt({ exp: 10 }), 9_000)).toBeNull();
    expect(tokenProblem('not a token')).toMatch(/not a JWT/);
  });
});
