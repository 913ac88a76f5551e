/**
 * Every event type the service appends to the event log, with the type of its `data`: the one list a projection or a
 * reader of the log names event types from. The constants and data types live with their capability; this file joins
 * them. The write boundary takes only these: a decision's events and the writer's `append` are `NewLedgerEvent`s, so an
 * unknown type or data of another type's shape does not compile (test/unit/store/ledger-event.types.ts).
 */
import { COMMAND_REJECTED, type StoredRejection } from '../command-completions/events';
import { EXTERNAL_PARTY_ALLOCATED, type ExternalPartyAllocatedData } from '../external-parties/events';
import {
  IDENTITY_PROVIDER_CREATED,
  IDENTITY_PROVIDER_DELETED,
  IDENTITY_PROVIDER_UPDATED,
  type IdentityProviderConfigData,
  type IdentityProviderDeletedData,
} from '../identity-providers/idp-rules';
import {
  PACKAGE_VETTING_CHANGED,
  PACKAGES_UPLOADED,
  type PackagesUploadedData,
  type PackageVettingChangedData,
} from '../packages/events';
import {
  PARTY_ALLOCATED,
  PARTY_DETAILS_UPDATED,
  type PartyAllocatedData,
  type PartyDetailsUpdatedData,
} from '../parties/events';
import { LEDGER_PRUNED, type LedgerPruned } from '../updates/pruning';
import {
  USER_CREATED,
  USER_DELETED,
  USER_IDENTITY_PROVIDER_CHANGED,
  USER_RIGHTS_GRANTED,
  USER_RIGHTS_REVOKED,
  USER_UPDATED,
  type UserCreatedData,
  type UserDeletedData,
  type UserIdentityProviderChangedData,
  type UserRightsChangedData,
  type UserUpdatedData,
} from '../users/events';
import type { CommittedEvent, NewEvent } from './events';
import {
  REASSIGNMENT_COMMITTED,
  TOPOLOGY_TRANSACTION_COMMITTED,
  TRANSACTION_COMMITTED,
  type StoredReassignment,
  type StoredTopologyTransaction,
  type StoredTransaction,
} from './updates';

/** The `data` of each event type of the log, keyed by the event's `type`. */
export interface LedgerEventData {
  // ledger updates
  [TRANSACTION_COMMITTED]: StoredTransaction;
  [REASSIGNMENT_COMMITTED]: StoredReassignment;
  [TOPOLOGY_TRANSACTION_COMMITTED]: StoredTopologyTransaction;
  // completions and pruning
  [COMMAND_REJECTED]: StoredRejection;
  [LEDGER_PRUNED]: LedgerPruned;
  // packages
  [PACKAGES_UPLOADED]: PackagesUploadedData;
  [PACKAGE_VETTING_CHANGED]: PackageVettingChangedData;
  // parties
  [PARTY_ALLOCATED]: PartyAllocatedData;
  [PARTY_DETAILS_UPDATED]: PartyDetailsUpdatedData;
  [EXTERNAL_PARTY_ALLOCATED]: ExternalPartyAllocatedData;
  // users
  [USER_CREATED]: UserCreatedData;
  [USER_RIGHTS_GRANTED]: UserRightsChangedData;
  [USER_RIGHTS_REVOKED]: UserRightsChangedData;
  [USER_UPDATED]: UserUpdatedData;
  [USER_IDENTITY_PROVIDER_CHANGED]: UserIdentityProviderChangedData;
  [USER_DELETED]: UserDeletedData;
  // identity providers
  [IDENTITY_PROVIDER_CREATED]: IdentityProviderConfigData;
  [IDENTITY_PROVIDER_UPDATED]: IdentityProviderConfigData;
  [IDENTITY_PROVIDER_DELETED]: IdentityProviderDeletedData;
}

/** An event type of the log. */
export type LedgerEventType = keyof LedgerEventData;

/** A committed event of one of the `T` types, its `data` typed by its `type` (a union narrowed by `event.type`). */
export type LedgerEventOf<T extends LedgerEventType> = { [K in T]: CommittedEvent<K, LedgerEventData[K]> }[T];

/** A committed event of the log: the discriminated union of every event type, keyed by `type`. */
export type LedgerEvent = LedgerEventOf<LedgerEventType>;

/** An event to append, of one of the `T` types. */
export type NewLedgerEvent<T extends LedgerEventType = LedgerEventType> = {
  [K in T]: NewEvent<K, LedgerEventData[K]>;
}[T];

const EVENT_TYPES: { readonly [T in LedgerEventType]: true } = {
  [TRANSACTION_COMMITTED]: true,
  [REASSIGNMENT_COMMITTED]: true,
  [TOPOLOGY_TRANSACTION_COMMITTED]: true,
  [COMMAND_REJECTED]: true,
  [LEDGER_PRUNED]: true,
  [PACKAGES_UPLOADED]: true,
  [PACKAGE_VETTING_CHANGED]: true,
  [PARTY_ALLOCATED]: true,
  [PARTY_DETAILS_UPDATED]: true,
  [EXTERNAL_PARTY_ALLOCATED]: true,
  [USER_CREATED]: true,
  [USER_RIGHTS_GRANTED]: true,
  [USER_RIGHTS_REVOKED]: true,
  [USER_UPDATED]: true,
  [USER_IDENTITY_PROVIDER_CHANGED]: true,
  [USER_DELETED]: true,
  [IDENTITY_PROVIDER_CREATED]: true,
  [IDENTITY_PROVIDER_UPDATED]: true,
  [IDENTITY_PROVIDER_DELETED]: true,
};

/** Every event type of the log. */
export const LEDGER_EVENT_TYPES: readonly LedgerEventType[] = Object.keys(EVENT_TYPES) as LedgerEventType[];

/** Whether `type` is an event type of the log. */
export const isLedgerEventType = (type: string): type is LedgerEventType => Object.hasOwn(EVENT_TYPES, type);

/**
 * Whether `event` (a row read back from the log, or one just committed) is a `LedgerEvent`, by its type. Its data is the
 * data its event type was appended with: the log stores an event's `data` as it was given.
 */
export const isLedgerEvent = (event: CommittedEvent): event is LedgerEvent => isLedgerEventType(event.type);

/** Whether `event` is of one of `types` (which makes it a `LedgerEvent` of those types, as `isLedgerEvent` says). */
export const isEventOf = <T extends LedgerEventType>(
  event: CommittedEvent,
  types: readonly T[],
): event is LedgerEventOf<T> => (types as readonly string[]).includes(event.type);
