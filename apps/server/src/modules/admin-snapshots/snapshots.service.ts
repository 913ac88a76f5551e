import { Injectable } from '@nestjs/common';
import {
  alreadyExists,
  failedPrecondition,
  invalidArgument,
  notFound,
  requireParticipantAdmin,
  type Claims,
} from '@ledgerline/domain';
import { SnapshotError } from '@ledgerline/store';
import { ensureAdminUser, LedgerRuntime } from '../../infrastructure/runtime';

/**
 * Snapshots, restore, fork and reset of this ledger (the testing admin API). Each operation checks the caller's rights
 * and the setting first, then runs with the instance quiescent (LedgerMaintenance) on libs/store's LedgerSnapshots.
 */
@Injectable()
export class SnapshotsService {
  constructor(private readonly runtime: LedgerRuntime) {}

  async list(claims: Claims) {
    this.allow(claims);
    return { snapshots: await this.mapped(() => this.runtime.snapshots.list()) };
  }

  async create(claims: Claims, name: string, replace: boolean) {
    this.allow(claims);
    return this.quiescent(() => this.runtime.snapshots.snapshot(name, { replace }), false, `snapshot '${name}'`);
  }

  async restore(claims: Claims, name: string) {
    this.allow(claims);
    const info = await this.quiescent(
      () => this.runtime.snapshots.restore(name),
      true,
      `the ledger was restored to snapshot '${name}'`,
    );
    return { restored: info.name, ledgerEnd: info.ledgerEnd };
  }

  async reset(claims: Claims, snapshot: string | undefined) {
    this.allow(claims);
    const reason = snapshot ? `the ledger was reset to snapshot '${snapshot}'` : 'the ledger was reset to empty';
    return this.quiescent(
      async () => {
        const out = await this.runtime.snapshots.reset(snapshot);
        // An empty ledger has no users: the bootstrap admin exists again at once, as on a first start.
        await ensureAdminUser(this.runtime.eventStore, this.runtime.config.adminUser);
        return out;
      },
      true,
      reason,
    );
  }

  async delete(claims: Claims, name: string) {
    this.allow(claims);
    if (!(await this.mapped(() => this.runtime.snapshots.delete(name))))
      throw notFound('SNAPSHOT_NOT_FOUND', `snapshot '${name}' not found`, [['SNAPSHOT', name]]);
    return {};
  }

  async fork(claims: Claims, snapshot: string, name: string) {
    this.allow(claims);
    const fork = await this.mapped(() => this.runtime.snapshots.fork(snapshot, name));
    return {
      name: fork.name,
      fromSnapshot: fork.fromSnapshot,
      database: this.runtime.snapshots.forkDatabase(fork.name),
    };
  }

  async listForks(claims: Claims) {
    this.allow(claims);
    const forks = await this.mapped(() => this.runtime.snapshots.listForks());
    return {
      forks: forks.map((f) => ({
        name: f.name,
        fromSnapshot: f.fromSnapshot,
        database: this.runtime.snapshots.forkDatabase(f.name),
      })),
    };
  }

  async deleteFork(claims: Claims, name: string) {
    this.allow(claims);
    if (!(await this.mapped(() => this.runtime.snapshots.deleteFork(name))))
      throw notFound('FORK_NOT_FOUND', `fork '${name}' not found`, [['FORK', name]]);
    return {};
  }

  private allow(claims: Claims): void {
    requireParticipantAdmin(claims);
    if (!this.runtime.config.testingApi) {
      throw failedPrecondition(
        'TESTING_API_DISABLED',
        this.runtime.hosted
          ? 'snapshots are taken of the server’s own ledger, not of a hosted test ledger'
          : 'the testing admin API is off (NODE_ENV=production): set LEDGER_TESTING_API=true to enable it',
      );
    }
    if (this.runtime.config.workers > 1) {
      throw failedPrecondition('TESTING_API_DISABLED', 'snapshots need a single service process: set LEDGER_WORKERS=1');
    }
  }

  private quiescent<T>(operation: () => Promise<T>, replaces: boolean, reason: string): Promise<T> {
    return this.mapped(() => this.runtime.maintenance.run(operation, { self: true, replaces, reason }));
  }

  private async mapped<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (e) {
      throw snapshotError(e);
    }
  }
}

function snapshotError(e: unknown): unknown {
  if (!(e instanceof SnapshotError)) return e;
  switch (e.kind) {
    case 'invalid-name':
    case 'name-too-long':
      return invalidArgument(e.message);
    case 'not-found':
      return notFound('SNAPSHOT_NOT_FOUND', e.message);
    case 'exists':
      return alreadyExists('SNAPSHOT_ALREADY_EXISTS', e.message);
  }
}
