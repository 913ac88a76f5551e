import fs from 'node:fs/promises';
import path from 'node:path';
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  bootstrapCommandId,
  isLedgerError,
  resolveBootstrapArguments,
  resolveBootstrapParty,
  rightKey,
  type BootstrapSpec,
  type Claims,
  type Right,
} from '@ledgerline/domain';
import { BootstrapRepository, PartiesRepository, UsersRepository } from '@ledgerline/store';
import { decodeJsCommands } from '@ledgerline/wire';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { UploadDarCommand } from '../packages/commands/package.commands';
import { AllocatePartyCommand } from '../parties/commands/party.commands';
import { CreateUserCommand, GrantUserRightsCommand } from '../users/commands/user.commands';
import { SubmitCommandsCommand } from '../command-submission/commands/submit-commands.command';

/** What one application of the bootstrap file did, and what the ledger refused (one line each). */
export interface BootstrapReport {
  partiesAllocated: number;
  usersCreated: number;
  darsUploaded: number;
  contractsCreated: number;
  problems: string[];
}

/**
 * Applies the declarative bootstrap file through the same commands as the API, as the configured admin user, so every
 * entry meets the same checks. Idempotent: existing parties and users are kept (an existing user is granted the listed
 * rights it lacks), an uploaded DAR changes nothing, and a contract entry is created once per key
 * (table `bootstrap_contracts`; its command id is derived from the key, so a crash between the creation and the record
 * is caught by command deduplication). One application at a time per database (advisory lock).
 */
@Injectable()
export class BootstrapService {
  constructor(
    private readonly applied: BootstrapRepository,
    private readonly users: UsersRepository,
    private readonly parties: PartiesRepository,
    private readonly commands: CommandBus,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
  ) {}

  apply(spec: BootstrapSpec): Promise<BootstrapReport> {
    return this.applied.withLock(this.runtime.database.pool, () => this.applyLocked(spec));
  }

  private async applyLocked(spec: BootstrapSpec): Promise<BootstrapReport> {
    const db = this.runtime.db;
    const report: BootstrapReport = {
      partiesAllocated: 0,
      usersCreated: 0,
      darsUploaded: 0,
      contractsCreated: 0,
      problems: [],
    };
    const admin = this.runtime.config.adminUser;
    // The bootstrap acts for the operator: administration, and acting as the parties its contracts name.
    const claims: Claims = {
      userId: admin,
      identityProviderId: '',
      rights: [{ kind: 'ParticipantAdmin' }, { kind: 'CanActAsAnyParty' }],
    };
    const namespace = this.identity.fingerprint;
    const synchronizerId = this.identity.synchronizers[0].id;
    const party = (ref: string) => resolveBootstrapParty(ref, namespace);
    const attempt = async (where: string, fn: () => Promise<unknown>): Promise<boolean> => {
      try {
        await fn();
        return true;
      } catch (e) {
        if (!isLedgerError(e)) throw e;
        report.problems.push(`${where}: ${e.code}: ${e.causeText}`);
        return false;
      }
    };

    for (const [i, hint] of spec.parties.entries()) {
      if (await this.parties.get(db, party(hint))) continue;
      const input = {
        partyIdHint: hint,
        annotations: {},
        resourceVersion: '',
        identityProviderId: '',
        synchronizerId,
        userId: '',
      };
      if (
        await attempt(`parties[${i}] '${hint}'`, () => this.commands.execute(new AllocatePartyCommand(claims, input)))
      )
        report.partiesAllocated++;
    }

    for (const [i, u] of spec.users.entries()) {
      const rights = u.rights.map(
        (r) => (r.party === undefined ? { kind: r.kind } : { kind: r.kind, party: party(r.party) }) as Right,
      );
      const where = `users[${i}] '${u.id}'`;
      const existing = await this.users.state(db, u.id);
      if (existing.user) {
        const held = new Set(existing.rights.map(rightKey));
        const missing = rights.filter((r) => !held.has(rightKey(r)));
        if (missing.length)
          await attempt(where, () =>
            this.commands.execute(new GrantUserRightsCommand(claims, u.id, missing, existing.user!.identityProviderId)),
          );
        continue;
      }
      const record = {
        id: u.id,
        primaryParty: u.primaryParty ? party(u.primaryParty) : '',
        isDeactivated: false,
        annotations: {},
        identityProviderId: '',
      };
      if (await attempt(where, () => this.commands.execute(new CreateUserCommand(claims, record, rights))))
        report.usersCreated++;
    }

    for (const [i, dar] of spec.dars.entries()) {
      const upload = new UploadDarCommand(claims, () => fs.readFile(dar), true, synchronizerId);
      if (await attempt(`dars[${i}] ${path.basename(dar)}`, () => this.commands.execute(upload))) report.darsUploaded++;
    }

    const done = await this.applied.appliedContractKeys(db);
    for (const [i, c] of spec.contracts.entries()) {
      if (done.has(c.key)) continue;
      const request = decodeJsCommands({
        commands: [
          {
            CreateCommand: {
              templateId: c.templateId,
              createArguments: resolveBootstrapArguments(c.arguments, namespace),
            },
          },
        ],
        commandId: bootstrapCommandId(c.key),
        actAs: c.actAs.map(party),
        readAs: c.readAs.map(party),
        userId: admin,
      });
      const where = `contracts[${i}] '${c.key}'`;
      try {
        const r = (await this.commands.execute(new SubmitCommandsCommand(claims, request, 'wait'))) as {
          updateId: string;
        };
        await this.applied.recordContract(db, c.key, r.updateId);
        report.contractsCreated++;
      } catch (e) {
        if (!isLedgerError(e)) throw e;
        // Created by an application that stopped before recording it.
        if (e.code === 'DUPLICATE_COMMAND') await this.applied.recordContract(db, c.key, '');
        else report.problems.push(`${where}: ${e.code}: ${e.causeText}`);
      }
    }
    return report;
  }
}
