import type { Logger } from 'pino';
import { mintHs256Token } from '@ledgerline/auth';
import type { LedgerRuntime } from './runtime';

/** How long the token of the start-up sign-in link is valid. */
export const SIGN_IN_LINK_TTL_SECONDS = 15 * 60;

/** The explorer's address as a person on this machine opens it (a wildcard bind address means this machine). */
export function explorerUrl(host: string, port: number): string {
  const shown =
    host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}/explorer`;
}

/**
 * Says at start-up where the explorer is. On a local development start (the generated HS256 secret: no JWT key
 * configured) and with LEDGER_EXPLORER_SIGN_IN_LINK on, also a ready-to-open link carrying a short-lived token of the
 * admin user in its fragment: written to `print` (stderr) only, never to the JSON log, and a browser never sends a
 * fragment to the server. With a configured key the service cannot mint tokens, so only the address is logged.
 */
export async function announceExplorer(
  runtime: LedgerRuntime,
  logger: Logger,
  print: (line: string) => void,
): Promise<void> {
  const { config } = runtime;
  const url = explorerUrl(config.host, config.port);
  const generated = runtime.jwtSecret !== undefined && config.jwtSecret === undefined;
  if (!generated || !config.explorerSignInLink) {
    logger.info({ url }, `ledger explorer: ${url}`);
    return;
  }
  const token = await mintHs256Token({
    secret: runtime.jwtSecret!,
    userId: config.adminUser,
    participantId: runtime.identity.participantId,
    expiresInSeconds: SIGN_IN_LINK_TTL_SECONDS,
  });
  logger.info({ url }, 'ledger explorer: its sign-in link is printed on stderr');
  print(
    `\nLedger explorer, signed in as ${config.adminUser} for ${SIGN_IN_LINK_TTL_SECONDS / 60} minutes:\n  ${url}#token=${token}\n\n`,
  );
}
