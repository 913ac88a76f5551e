import { Body, Controller } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims, GeneratedTopology } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  bytesFromJs,
  signatureFromJs,
  signatureSchema,
  signingPublicKeyFromJs,
  signingPublicKeySchema,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { AllocateExternalPartyCommand } from './commands/allocate-external-party.command';
import { GenerateExternalPartyTopologyQuery } from './queries/generate-topology.query';

const generateTopologyBody = {
  type: 'object',
  required: ['synchronizer', 'partyHint', 'publicKey'],
  properties: {
    synchronizer: { type: 'string' },
    partyHint: { type: 'string' },
    publicKey: signingPublicKeySchema,
    localParticipantObservationOnly: { type: 'boolean' },
    otherConfirmingParticipantUids: { type: 'array', items: { type: 'string' } },
    confirmationThreshold: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
    observingParticipantUids: { type: 'array', items: { type: 'string' } },
  },
} as const;

const allocateBody = {
  type: 'object',
  required: ['synchronizer', 'onboardingTransactions'],
  properties: {
    synchronizer: { type: 'string' },
    onboardingTransactions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['transaction'],
        properties: { transaction: { type: 'string' }, signatures: { type: 'array', items: signatureSchema } },
      },
    },
    multiHashSignatures: { type: 'array', items: signatureSchema },
    identityProviderId: { type: 'string' },
    waitForAllocation: { type: 'boolean' },
    userId: { type: 'string' },
  },
} as const;

type Obj = Record<string, unknown>;

/** External parties: generate the onboarding topology, and allocate the party from its signed transaction. */
@Controller('v2/parties/external')
export class ExternalPartiesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @PostJson('generate-topology')
  @RouteSchema({ body: generateTopologyBody })
  async generateTopology(@CurrentClaims() claims: Claims, @Body() body: Obj) {
    const t: GeneratedTopology = await this.queries.execute(
      new GenerateExternalPartyTopologyQuery(claims, {
        synchronizer: body.synchronizer as string,
        partyHint: body.partyHint as string,
        publicKey: signingPublicKeyFromJs(body.publicKey as Obj, 'publicKey'),
        localParticipantObservationOnly: (body.localParticipantObservationOnly as boolean | undefined) ?? false,
        confirmationThreshold: (body.confirmationThreshold as number | undefined) ?? 0,
        otherConfirmingParticipantUids: (body.otherConfirmingParticipantUids as string[] | undefined) ?? [],
        observingParticipantUids: (body.observingParticipantUids as string[] | undefined) ?? [],
      }),
    );
    return {
      partyId: t.partyId,
      publicKeyFingerprint: t.publicKeyFingerprint,
      topologyTransactions: t.topologyTransactions.map((b) => b.toString('base64')),
      multiHash: t.multiHash.toString('base64'),
    };
  }

  @PostJson('allocate')
  @RouteSchema({ body: allocateBody })
  async allocate(@CurrentClaims() claims: Claims, @Body() body: Obj) {
    const txs = body.onboardingTransactions as Obj[];
    const sigs = (body.multiHashSignatures as Obj[] | undefined) ?? [];
    const partyId: string = await this.commands.execute(
      new AllocateExternalPartyCommand(
        claims,
        {
          synchronizer: body.synchronizer as string,
          onboardingTransactions: txs.map((t, i) => ({
            transaction: bytesFromJs(t.transaction, `onboardingTransactions[${i}].transaction`),
            signatures: ((t.signatures as Obj[] | undefined) ?? []).map((s, j) =>
              signatureFromJs(s, `onboardingTransactions[${i}].signatures[${j}]`),
            ),
          })),
          multiHashSignatures: sigs.map((s, i) => signatureFromJs(s, `multiHashSignatures[${i}]`)),
          identityProviderId: (body.identityProviderId as string | undefined) ?? '',
        },
        (body.userId as string | undefined) ?? '',
      ),
    );
    return { partyId };
  }
}
