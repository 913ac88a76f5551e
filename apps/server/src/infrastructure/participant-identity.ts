import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { fingerprintOfKeyBytes } from '@ledgerline/canton';
import { NodeSecretsRepository, type Database } from '@ledgerline/store';

export interface Synchronizer {
  alias: string;
  id: string;
}

/** Who this participant is: its namespace key, id and the synchronizers it is connected to. */
export class ParticipantIdentity {
  constructor(
    readonly name: string,
    readonly fingerprint: string,
    readonly namespacePublicKey: Buffer,
    readonly synchronizers: Synchronizer[],
  ) {}

  get participantId(): string {
    return `${this.name}::${this.fingerprint}`;
  }

  synchronizer(id: string): Synchronizer | undefined {
    return this.synchronizers.find((s) => s.id === id);
  }

  get defaultSynchronizer(): Synchronizer {
    return this.synchronizers[0];
  }
}

/**
 * Loads the participant's Ed25519 namespace key from the database, generating it on the very first start. Synchronizer ids
 * are derived from the alias and the participant's key, so they are stable across restarts and instances.
 */
export async function loadParticipantIdentity(
  db: Database['db'],
  name: string,
  aliases: string[],
): Promise<ParticipantIdentity> {
  const secrets = new NodeSecretsRepository();
  const pkcs8 = await secrets.getOrCreate(db, 'participant_namespace_key', () =>
    generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
  );
  const priv = createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
  const raw = (createPublicKey(priv).export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
  const fingerprint = fingerprintOfKeyBytes(raw);
  const synchronizers = aliases.map((alias) => ({
    alias,
    id: `${alias}::1220${createHash('sha256').update('ledgerline-synchronizer').update(alias).update(raw).digest('hex')}`,
  }));
  return new ParticipantIdentity(name, fingerprint, raw, synchronizers);
}
