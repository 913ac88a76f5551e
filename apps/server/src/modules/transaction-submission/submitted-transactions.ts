import { Injectable } from '@nestjs/common';
import {
  renderSubmittedTransaction,
  renderSubmittedTransactionTree,
  updateNotFound,
  type CommittedEvent,
  type StoredUpdate,
  type TransactionFormat,
} from '@ledgerline/domain';
import { InterfaceDirectories } from '../../infrastructure/interface-directories';
import { UpdatesReader } from '../../streaming/update-stream';

/** The answers that carry a submission's transaction (…-for-transaction, -for-transaction-tree), read back by update id. */
@Injectable()
export class SubmittedTransactions {
  constructor(
    private readonly updates: UpdatesReader,
    private readonly interfaces: InterfaceDirectories,
  ) {}

  async transaction(updateId: string, format: TransactionFormat) {
    const interfaces = await this.interfaces.forFormat(format.eventFormat);
    return { transaction: renderSubmittedTransaction(await this.read(updateId), format, interfaces) };
  }

  /** A dry run's transaction (the event the writer would commit, not stored) in `format`. */
  async simulated(committed: CommittedEvent, format: TransactionFormat) {
    const interfaces = await this.interfaces.forFormat(format.eventFormat);
    const h = committed.update!;
    const u: StoredUpdate = {
      offset: h.offset,
      updateId: h.updateId,
      kind: h.kind,
      synchronizerId: h.synchronizerId,
      recordTime: h.recordTime,
      payload: committed.data,
    };
    return { transaction: renderSubmittedTransaction(u, format, interfaces) };
  }

  async tree(updateId: string, actAs: readonly string[]) {
    return { transactionTree: renderSubmittedTransactionTree(await this.read(updateId), actAs) };
  }

  private async read(updateId: string): Promise<StoredUpdate> {
    const u = await this.updates.byUpdateId(updateId);
    // Only pruning between the commit and this read could remove it.
    if (!u) throw updateNotFound(updateId);
    return u;
  }
}
