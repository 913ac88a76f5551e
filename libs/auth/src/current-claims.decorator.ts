import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Claims } from '@ledgerline/domain';

/** The authenticated caller's claims (set by the guard). */
export const CurrentClaims = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Claims => ctx.switchToHttp().getRequest().user,
);
