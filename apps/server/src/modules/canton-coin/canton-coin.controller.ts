import { Body, Controller, Get, Param, Res } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import {
  CANTON_COIN_TEMPLATES as T,
  SPLICE_AMULET_PACKAGE,
  spliceContract,
  spliceContractWithState,
  usableOpenRound,
  openMiningRoundOf,
} from '@ledgerline/domain';
import { CantonCoinRepository, type ActiveContract } from '@ledgerline/store';
import { PostJson } from '../../http/routes';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { CantonCoinService, VALIDATOR_USER, qualifiedName } from './canton-coin.service';

/** An answer of Splice's APIs that is not a 200: Splice's `ErrorResponse` (`{"error": "…"}`) with its status. */
class SpliceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const cachedIds = { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } };
const amuletRulesRequest = {
  type: 'object',
  properties: {
    cached_amulet_rules_contract_id: { type: 'string', maxLength: 1000 },
    cached_amulet_rules_domain_id: { type: 'string', maxLength: 1000 },
  },
};
const roundsRequest = {
  type: 'object',
  properties: { cached_open_mining_round_contract_ids: cachedIds, cached_issuing_round_contract_ids: cachedIds },
};

/**
 * The Splice validator and Scan endpoints the wallet SDK (`@canton-network/wallet-sdk`, its `core-splice-client` and
 * `core-amulet-service`) calls, served by the Canton Coin profile on the ledger's port: under `/api/validator` the
 * validator's `/v0/validator-user` and its Scan proxy (`/v0/scan-proxy/…`), under `/api/scan` Scan's own forms of the same
 * reads. Paths, field names and shapes are those of Splice's OpenAPI files (`validator-internal.yaml`, `scan-proxy.yaml`,
 * `scan.yaml`). Any valid token may read them (the network's public state). Errors use Splice's `ErrorResponse`; with the
 * profile off every route answers 404.
 */
@Controller('api')
export class CantonCoinController {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly coin: CantonCoinService,
    private readonly contracts: CantonCoinRepository,
  ) {}

  @Get('validator/v0/validator-user')
  validatorUser(@Res() reply: FastifyReply) {
    return this.answer(reply, async () => {
      const { validator, dso } = await this.state();
      const featured = await this.contracts.activeContracts(
        this.runtime.db,
        SPLICE_AMULET_PACKAGE,
        [T.featuredAppRight],
        { field: 'provider', value: validator },
      );
      return { party_id: validator, user_name: VALIDATOR_USER, featured: featured.some((c) => dsoOf(c) === dso) };
    });
  }

  @Get('validator/v0/scan-proxy/dso-party-id')
  proxyDsoPartyId(@Res() reply: FastifyReply) {
    return this.answer(reply, async () => ({ dso_party_id: (await this.state()).dso }));
  }

  @Get('validator/v0/scan-proxy/amulet-rules')
  proxyAmuletRules(@Res() reply: FastifyReply) {
    return this.answer(reply, async () => ({ amulet_rules: withState((await this.state()).amuletRules) }));
  }

  @Get('validator/v0/scan-proxy/open-and-issuing-mining-rounds')
  proxyRounds(@Res() reply: FastifyReply) {
    return this.answer(reply, async () => {
      const { open, issuing } = await this.rounds();
      return { open_mining_rounds: open.map(withState), issuing_mining_rounds: issuing.map(withState) };
    });
  }

  @Get('validator/v0/scan-proxy/transfer-preapprovals/by-party/:party')
  proxyPreapproval(@Param('party') party: string, @Res() reply: FastifyReply) {
    return this.answer(reply, async () => ({ transfer_preapproval: withState(await this.preapproval(party)) }));
  }

  @Get('validator/v0/scan-proxy/featured-apps/:provider_party_id')
  proxyFeaturedApp(@Param('provider_party_id') provider: string, @Res() reply: FastifyReply) {
    return this.answer(reply, () => this.featuredApp(provider));
  }

  @Get('scan/v0/dso-party-id')
  scanDsoPartyId(@Res() reply: FastifyReply) {
    return this.proxyDsoPartyId(reply);
  }

  @PostJson('scan/v0/amulet-rules')
  @RouteSchema({ body: amuletRulesRequest })
  scanAmuletRules(@Body() body: { cached_amulet_rules_contract_id?: string } | undefined, @Res() reply: FastifyReply) {
    return this.answer(reply, async () => {
      const rules = (await this.state()).amuletRules;
      return {
        amulet_rules_update: maybeCached(
          rules,
          new Set(body?.cached_amulet_rules_contract_id ? [body.cached_amulet_rules_contract_id] : []),
        ),
      };
    });
  }

  @PostJson('scan/v0/open-and-issuing-mining-rounds')
  @RouteSchema({ body: roundsRequest })
  scanRounds(
    @Body()
    body:
      { cached_open_mining_round_contract_ids?: string[]; cached_issuing_round_contract_ids?: string[] } | undefined,
    @Res() reply: FastifyReply,
  ) {
    return this.answer(reply, async () => {
      const { open, issuing } = await this.rounds();
      const cached = new Set([
        ...(body?.cached_open_mining_round_contract_ids ?? []),
        ...(body?.cached_issuing_round_contract_ids ?? []),
      ]);
      const map = (rows: ActiveContract[]) =>
        Object.fromEntries(rows.map((r) => [r.createdEvent.contractId, maybeCached(r, cached)]));
      // Scan tells clients to ask again once the next round may have opened: in a tick at the latest.
      const now = this.runtime.clock.nowMicros();
      const rounds = open.map((r) => openMiningRoundOf(r.createdEvent.contractId, r.createdEvent.createArgument));
      const next = rounds.flatMap((r) => [r.opensAt, r.targetClosesAt]).filter((t) => t > now);
      const tick = usableOpenRound(rounds, now)?.tickMicros ?? 600_000_000n;
      const ttl = next.length ? next.reduce((a, b) => (a < b ? a : b)) - now : tick;
      return {
        time_to_live_in_microseconds: Number(ttl < tick ? ttl : tick),
        open_mining_rounds: map(open),
        issuing_mining_rounds: map(issuing),
      };
    });
  }

  @Get('scan/v0/transfer-preapprovals/by-party/:party')
  scanPreapproval(@Param('party') party: string, @Res() reply: FastifyReply) {
    return this.proxyPreapproval(party, reply);
  }

  @Get('scan/v0/featured-apps/:provider_party_id')
  scanFeaturedApp(@Param('provider_party_id') provider: string, @Res() reply: FastifyReply) {
    return this.proxyFeaturedApp(provider, reply);
  }

  // ---------------------------------------------------------------------------------------------------------------

  private async answer(reply: FastifyReply, fn: () => Promise<unknown>): Promise<void> {
    try {
      if (!this.coin.enabled)
        throw new SpliceError(404, 'The Canton Coin profile is off (LEDGER_CANTON_COIN=dev turns it on)');
      void reply.status(200).send(await fn());
    } catch (e) {
      if (!(e instanceof SpliceError)) throw e;
      void reply.status(e.status).send({ error: e.message });
    }
  }

  private async state() {
    const state = await this.coin.currentState();
    if (!state)
      throw new SpliceError(
        404,
        `No AmuletRules: the Canton Coin profile sets up once ${SPLICE_AMULET_PACKAGE} is uploaded`,
      );
    return state;
  }

  private async rounds(): Promise<{ open: ActiveContract[]; issuing: ActiveContract[] }> {
    const { dso } = await this.state();
    const rows = await this.contracts.activeContracts(
      this.runtime.db,
      SPLICE_AMULET_PACKAGE,
      [T.openMiningRound, T.issuingMiningRound],
      { field: 'dso', value: dso },
    );
    // Ascending by round number: the SDK takes the last usable round in the answer's order.
    const byRound = (name: string) =>
      rows.filter((r) => qualifiedName(r.createdEvent) === name).sort((a, b) => roundNumber(a) - roundNumber(b));
    return { open: byRound(T.openMiningRound), issuing: byRound(T.issuingMiningRound) };
  }

  /** The receiver's transfer preapproval (the latest to expire if several), as Splice's Scan looks it up. */
  private async preapproval(party: string): Promise<ActiveContract> {
    const { dso } = await this.state();
    const rows = (
      await this.contracts.activeContracts(this.runtime.db, SPLICE_AMULET_PACKAGE, [T.transferPreapproval], {
        field: 'receiver',
        value: party,
      })
    ).filter((c) => dsoOf(c) === dso);
    const expiresAt = (c: ActiveContract) =>
      Date.parse((c.createdEvent.createArgument as { expiresAt: string }).expiresAt);
    const found = rows.sort((a, b) => expiresAt(a) - expiresAt(b)).at(-1);
    if (!found) throw new SpliceError(404, `No TransferPreapproval found for party: ${party}`);
    return found;
  }

  /** The provider's featured-app right, absent when it has none (a 200 either way, as Splice's Scan answers). */
  private async featuredApp(provider: string) {
    const { dso } = await this.state();
    const rows = (
      await this.contracts.activeContracts(this.runtime.db, SPLICE_AMULET_PACKAGE, [T.featuredAppRight], {
        field: 'provider',
        value: provider,
      })
    ).filter((c) => dsoOf(c) === dso);
    return rows.length ? { featured_app_right: spliceContract(rows[0].createdEvent) } : {};
  }
}

const roundNumber = (c: ActiveContract) =>
  Number((c.createdEvent.createArgument as { round: { number: string } }).round.number);
const dsoOf = (c: ActiveContract) => (c.createdEvent.createArgument as { dso?: string }).dso;
const withState = (c: ActiveContract) => spliceContractWithState(c.createdEvent, c.synchronizerId);
/** Scan's `MaybeCachedContractWithState`: the contract only when the caller's cache does not hold it already. */
const maybeCached = (c: ActiveContract, cached: Set<string>) =>
  cached.has(c.createdEvent.contractId) ? { domain_id: c.synchronizerId ?? undefined } : withState(c);
