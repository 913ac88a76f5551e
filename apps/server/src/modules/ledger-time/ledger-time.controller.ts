import { Body, Controller, Get } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { CurrentClaims } from '@ledgerline/auth';
import { invalidArgument, isoMicros, parseIsoMicros, requireParticipantAdmin, type Claims } from '@ledgerline/domain';
import { int64Schema } from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { moveLedgerTime } from '../../infrastructure/ledger-time';
import { LedgerRuntime } from '../../infrastructure/runtime';

const timestamp = { type: 'string', maxLength: 64 };
const setTimeSchema = {
  type: 'object',
  properties: {
    currentTime: timestamp,
    newTime: timestamp,
    advanceBy: {
      type: 'object',
      required: ['seconds'],
      properties: { seconds: int64Schema, nanos: { type: 'integer' } },
    },
  },
};

/**
 * The ledger's time (admin): GET answers it and its mode; POST sets it (`newTime`) or advances it (`advanceBy`) in
 * static-time mode, never backwards. `currentTime`, when given, must be the current time (Canton's SetTime).
 */
@Controller('v2/admin/time')
export class LedgerTimeController {
  constructor(private readonly runtime: LedgerRuntime) {}

  @Get()
  get(@CurrentClaims() claims: Claims) {
    requireParticipantAdmin(claims);
    return this.answer(this.runtime.clock.nowMicros());
  }

  @PostJson()
  @RouteSchema({ body: setTimeSchema })
  async set(
    @CurrentClaims() claims: Claims,
    @Body() body: { currentTime?: string; newTime?: string; advanceBy?: { seconds: number | string; nanos?: number } },
  ) {
    requireParticipantAdmin(claims);
    if ((body.newTime === undefined) === (body.advanceBy === undefined))
      throw invalidArgument('give exactly one of newTime and advanceBy');
    const newTime = body.newTime === undefined ? undefined : timeField('newTime', body.newTime);
    const expected = body.currentTime === undefined ? undefined : timeField('currentTime', body.currentTime);
    const advanceByMicros = body.advanceBy === undefined ? undefined : durationMicros(body.advanceBy);
    return this.answer(
      await moveLedgerTime(this.runtime.db, this.runtime.clock, { newTime, expected, advanceByMicros }),
    );
  }

  private answer(micros: bigint) {
    return { currentTime: isoMicros(micros), mode: this.runtime.clock.mode };
  }
}

function timeField(name: string, value: string): bigint {
  try {
    const micros = parseIsoMicros(value);
    if (micros >= 0n) return micros;
  } catch {
    // below
  }
  throw invalidArgument(`${name} must be an ISO-8601 UTC timestamp at or after 1970-01-01T00:00:00Z (got '${value}')`);
}

/** A protobuf Duration's JSON ({seconds, nanos}), not negative, at most 100 years. */
function durationMicros(d: { seconds: number | string; nanos?: number }): bigint {
  const seconds = String(d.seconds);
  const nanos = d.nanos ?? 0;
  if (
    !/^\d{1,10}$/.test(seconds) ||
    Number(seconds) > 100 * 366 * 86400 ||
    !Number.isInteger(nanos) ||
    nanos < 0 ||
    nanos > 999_999_999
  ) {
    throw invalidArgument('advanceBy must be a duration {seconds, nanos} between 0 and 100 years');
  }
  return BigInt(seconds) * 1_000_000n + BigInt(Math.floor(nanos / 1000));
}
