import { Injectable } from '@nestjs/common';
import {
  renderSubmittedTransaction,
  renderSubmittedTransactionTree,
  updateNotFound,
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
