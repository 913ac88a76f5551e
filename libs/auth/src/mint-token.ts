import { SignJWT } from 'jose';
import { PARTICIPANT_AUDIENCE_PREFIX } from './token-rules';

/** Mints an HS256 user token for this participant (dev tooling and tests). */
export async function mintHs256Token(opts: {
  secret: string;
  userId: string;
  participantId: string;
  expiresInSeconds?: number;
  extra?: Record<string, unknown>;
}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'daml_ledger_api', ...opts.extra })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(opts.userId)
    .setAudience(`${PARTICIPANT_AUDIENCE_PREFIX}${opts.participantId}`)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.expiresInSeconds ?? 24 * 3600))
    .sign(Buffer.from(opts.secret, 'utf8'));
}
