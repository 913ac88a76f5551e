import type { Kysely } from 'kysely';
import type { CommittedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { COLUMN_TYPES } from '../column-types';
import { applyProjections } from '../projections/registry';
import { BufferedSink, writeBuffered } from './buffered-sink';
import { RowBuffer } from './row-buffer';

/** Projections of events replayed from the log (a rebuild), buffered and written as the batched writer writes them. */
export class ProjectionReplay {
  private readonly buffer = new RowBuffer<DB>();
  private readonly sink = new BufferedSink(this.buffer, () => this.flush());

  /** `db`: an open transaction. */
  constructor(private readonly db: Kysely<DB>) {}

  apply(event: CommittedEvent): Promise<void> {
    return applyProjections(this.db, event, this.sink);
  }

  /** Writes what is buffered. */
  flush(): Promise<void> {
    return writeBuffered(this.db, this.buffer, COLUMN_TYPES);
  }
}
