import { Body, Controller, Delete, Get, Param } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import {
  alreadyExists,
  failedPrecondition,
  invalidArgument,
  notFound,
  requireParticipantAdmin,
  type Claims,
} from '@ledgerline/domain';
import { CurrentClaims, mintHs256Token } from '@ledgerline/auth';
import { SnapshotError } from '@ledgerline/store';
import { PostJson } from '../../http/routes';
import { HOSTED_LEDGER_ID, HostedLedgerExists, hostedLedgersOf, type HostedLedgers } from '../../hosted-ledgers';
import { LedgerRuntime } from '../../infrastructure/runtime';

/**
 * Test ledgers hosted by this process under /ledgers/<id> (hosted-ledgers.ts): create one from a snapshot (or empty),
 * list, drop. ParticipantAdmin; LEDGER_TESTING_API.
 */
@Controller('v2/admin/ledgers')
export class LedgersController {
  constructor(private readonly runtime: LedgerRuntime) {}

  @PostJson()
  @RouteSchema({ body: { type: 'object', properties: { ledgerId: { type: 'string' }, snapshot: { type: 'string' } } } })
  async create(@CurrentClaims() claims: Claims, @Body() body: { ledgerId?: string; snapshot?: string } | undefined) {
    const hosted = this.hosted(claims);
    const ledgerId = body?.ledgerId;
    if (ledgerId !== undefined && !HOSTED_LEDGER_ID.test(ledgerId))
      throw invalidArgument(`ledgerId '${ledgerId}' must match ${HOSTED_LEDGER_ID.source}`);
    try {
      return await hosted.create({ ledgerId, snapshot: body?.snapshot });
    } catch (e) {
      if (e instanceof HostedLedgerExists)
        throw alreadyExists('HOSTED_LEDGER_ALREADY_EXISTS', e.message, [['LEDGER', e.ledgerId]]);
      if (e instanceof SnapshotError) {
        if (e.kind === 'not-found') throw notFound('SNAPSHOT_NOT_FOUND', e.message);
        if (e.kind === 'exists') throw alreadyExists('HOSTED_LEDGER_ALREADY_EXISTS', e.message);
        throw invalidArgument(e.message);
      }
      throw e;
    }
  }

  /**
   * A token for `userId` on the hosted ledgers (they share the server's keys and participant id, so one token is valid
   * on each), signed with the server's HS256 secret: what `@ledgerline/testing` asks for, so that a test never needs the
   * operator's secret. `expiresInSeconds`: 1 to 86,400 (default 3,600).
   */
  @PostJson('tokens')
  @RouteSchema({
    body: {
      type: 'object',
      required: ['userId'],
      properties: {
        userId: { type: 'string', minLength: 1, maxLength: 128 },
        expiresInSeconds: { type: 'integer', minimum: 1, maximum: 86_400 },
      },
    },
  })
  async token(@CurrentClaims() claims: Claims, @Body() body: { userId: string; expiresInSeconds?: number }) {
    this.hosted(claims);
    const secret = this.runtime.jwtSecret;
    if (!secret)
      throw failedPrecondition(
        'TOKEN_MINTING_UNAVAILABLE',
        'this server verifies tokens with a public key or JWKS and holds no HS256 secret: tokens come from your identity provider',
      );
    const expiresInSeconds = body.expiresInSeconds ?? 3600;
    const token = await mintHs256Token({
      secret,
      userId: body.userId,
      participantId: this.runtime.identity.participantId,
      expiresInSeconds,
    });
    return { token, expiresAt: new Date(Date.now() + expiresInSeconds * 1000).toISOString() };
  }

  @Get()
  list(@CurrentClaims() claims: Claims) {
    return { ledgers: this.hosted(claims).list() };
  }

  @Delete(':ledgerId')
  async drop(@CurrentClaims() claims: Claims, @Param('ledgerId') ledgerId: string) {
    if (!(await this.hosted(claims).drop(ledgerId)))
      throw notFound('HOSTED_LEDGER_NOT_FOUND', `no ledger '${ledgerId}' is hosted here`, [['LEDGER', ledgerId]]);
    return {};
  }

  private hosted(claims: Claims): HostedLedgers {
    requireParticipantAdmin(claims);
    const hosted = hostedLedgersOf(this.runtime);
    if (!hosted) {
      throw failedPrecondition(
        'TESTING_API_DISABLED',
        this.runtime.hosted
          ? 'a hosted ledger hosts no ledgers: use the root server'
          : 'the testing admin API is off (NODE_ENV=production): set LEDGER_TESTING_API=true to enable it',
      );
    }
    return hosted;
  }
}
