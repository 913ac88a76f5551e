import type { Kysely } from 'kysely';
import type { CommittedEvent, NewLedgerEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { conflictKey, type ConflictKey, type ConflictNamespace } from './conflict-key';

/**
 * What a decision comes to: the events to append (none: the command changes nothing) and the caller's answer, made from
 * the committed events (their offsets and update ids are assigned by the writer). A rejection is a thrown LedgerError.
 */
export interface Decision<R> {
  /** Events of the log's types (`LedgerEvent`): a type outside the union, or data of another type's shape, does not compile. */
  readonly events: readonly NewLedgerEvent[];
  answer(committed: readonly CommittedEvent[]): R;
  /**
   * Data outside the event log that the events refer to (package archives), written in the same transaction before
   * them. The decision only describes it; the writer runs it.
   */
  readonly writeFirst?: (db: Kysely<DB>) => Promise<void>;
}

/** A decision with these events whose answer needs nothing of their commit. */
export const decision = <R>(events: readonly NewLedgerEvent[], answer: R): Decision<R> => ({
  events,
  answer: () => answer,
});

/** What a state load sees besides the database: the ledger end with every update appended before it in its transaction. */
export interface LoadContext {
  readonly ledgerEnd: number;
}

/**
 * A command's write path as one object: the key its state is looked up by, the SQL that loads that state for many keys
 * at once, the conflict keys of each field of the key, and the pure decision. The batched writer loads the state of a
 * run of commands at once and decides them one after the other; the conflict keys tell it which commands may share such
 * a run (no command of a run changes what another one reads or changes).
 *
 * The conflict keys come from the key's fields (`conflicts` has one entry per field, required by the compiler), so the
 * state the SQL reads by a field and the keys that protect it are declared side by side.
 */
export interface Decider<C, K, S, R> {
  /** For messages. */
  readonly name: string;
  /** What `load` looks the command's state up by. */
  key(command: C): K;
  /** Per field of the key: the state it names (see `reads`, `changes`, `everything`). */
  readonly conflicts: KeyConflicts<K>;
  /**
   * The state of each key, in the order of `keys`. The hot deciders (execute, reassignment, PATCH party and user) read
   * all keys with one statement; the rare ones read key by key.
   */
  load(db: Kysely<DB>, keys: readonly K[], at: LoadContext): Promise<S[]>;
  /** Checks the command against its state: its events and answer, or a thrown LedgerError. No I/O. */
  decide(state: S, command: C): Decision<R>;
}

/** What a writer does with a decision inside its transaction: its data first, then its events, then the answer. */
export async function carryOut<R>(
  d: Decision<R>,
  db: Kysely<DB>,
  append: (events: readonly NewLedgerEvent[]) => Promise<CommittedEvent[]>,
): Promise<R> {
  if (d.writeFirst) await d.writeFirst(db);
  return d.answer(d.events.length ? await append(d.events) : []);
}

/** How one field of a key names state: conflict keys `<namespace>:<id>`, one per id the field holds. */
export type FieldConflict<V> = StateConflict<V> | NoStateConflict;

/** A field naming state in `namespace`. */
export interface StateConflict<V> {
  readonly namespace: ConflictNamespace;
  /** 'reads': decisions depend on that state. 'changes': they depend on it and their events may change it. */
  readonly access: 'reads' | 'changes';
  readonly ids: (value: V) => string | readonly string[];
}

/** A field naming no state (see `namesNoState`). */
export interface NoStateConflict {
  readonly access: 'none';
}

/** One entry per field of K (the compiler requires each): the state the field names. */
export type KeyConflicts<K> = { readonly [F in keyof K]-?: FieldConflict<K[F]> | readonly FieldConflict<K[F]>[] };

type Ids<V> = (value: V) => string | readonly string[];
const asIds = (value: string | readonly string[]) => value;

/** The field holds ids (one or several) of state in `namespace` that decisions read. */
export function reads(namespace: ConflictNamespace): FieldConflict<string | readonly string[]>;
/** The field names state in `namespace` (its ids given by `ids`) that decisions read. */
export function reads<V>(namespace: ConflictNamespace, ids: Ids<V>): FieldConflict<V>;
export function reads(
  namespace: ConflictNamespace,
  ids: Ids<string | readonly string[]> = asIds,
): FieldConflict<string | readonly string[]> {
  return { namespace, access: 'reads', ids };
}

/** The field holds ids (one or several) of state in `namespace` that decisions read and may change. */
export function changes(namespace: ConflictNamespace): FieldConflict<string | readonly string[]>;
/** The field names state in `namespace` (its ids given by `ids`) that decisions read and may change. */
export function changes<V>(namespace: ConflictNamespace, ids: Ids<V>): FieldConflict<V>;
export function changes(
  namespace: ConflictNamespace,
  ids: Ids<string | readonly string[]> = asIds,
): FieldConflict<string | readonly string[]> {
  return { namespace, access: 'changes', ids };
}

/**
 * The conflict key of a command that depends on, or changes, the whole ledger (pruning): it shares a run with no other
 * command.
 */
export const EVERYTHING: ConflictKey = '*:all';
export const everything: FieldConflict<unknown> = { namespace: '*', access: 'changes', ids: () => 'all' };

/** A field that looks up no state (a discriminant of the key): no conflict key. */
export const namesNoState: NoStateConflict = { access: 'none' };

/** Conflict keys: everything a decision depends on (`reads`), and everything its events may change (`writes`). */
export interface Conflicts {
  readonly reads: readonly ConflictKey[];
  readonly writes: readonly ConflictKey[];
}

/** The conflict keys of `key`. */
export function conflictsOf<K>(conflicts: KeyConflicts<K>, key: K): Conflicts {
  const out = { reads: [] as ConflictKey[], writes: [] as ConflictKey[] };
  for (const field in conflicts) {
    const spec: FieldConflict<K[typeof field]> | readonly FieldConflict<K[typeof field]>[] = conflicts[field];
    if (isList(spec)) for (const c of spec) collect(c, key[field], out);
    else collect(spec, key[field], out);
  }
  return out;
}

function collect<V>(c: FieldConflict<V>, value: V, out: { reads: ConflictKey[]; writes: ConflictKey[] }): void {
  if (c.access === 'none') return;
  const ids = c.ids(value);
  if (typeof ids === 'string') add(c, ids, out);
  else for (const id of ids) add(c, id, out);
}

function add(c: StateConflict<never>, id: string, out: { reads: ConflictKey[]; writes: ConflictKey[] }): void {
  const k = conflictKey(c.namespace, id);
  out.reads.push(k);
  if (c.access === 'changes') out.writes.push(k);
}

const isList = <T>(v: T | readonly T[]): v is readonly T[] => Array.isArray(v);
