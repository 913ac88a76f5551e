import type { LedgerError } from '../errors';
import { annotationsTooLarge, mergeAnnotations } from './annotations';

/** The object metadata a participant-local record keeps (party records, users): its provider, version and annotations. */
export interface StoredObjectMeta {
  identityProviderId: string;
  resourceVersion: number;
  annotations: Record<string, string>;
}

/** What an update asks of a record's metadata. */
export interface ObjectMetaUpdate {
  /** The identity provider the request names (the effective one). */
  identityProviderId: string;
  /** The resource version the caller read, or null for no check. */
  expectedVersion: bigint | null;
  /** The annotations to merge, or null when the update mask leaves them as they are. */
  annotations: Record<string, string> | null;
}

/** The errors of the record kind, in Canton's wording for it. */
export interface ObjectMetaErrors<T> {
  notFound(): LedgerError;
  /** Checks of the record's own fields, after it is found and before its provider is compared. */
  checkRecord?(record: T): void;
  otherProvider(current: string): LedgerError;
  concurrentUpdate(): LedgerError;
  annotationsTooLarge(): LedgerError;
}

/**
 * The metadata rule shared by party records and users (Canton's PersistentPartyRecordStore and PersistentUserManagementStore,
 * ledger-api-core: ledger/localstore/): the record exists, is in the request's identity provider, has the resource version
 * the caller read (if given); the annotations merge (an empty value removes a key) and stay within the size limit; every
 * success, a no-op included, takes the next resource version.
 */
export function decideObjectMetaUpdate<T extends StoredObjectMeta>(
  record: T | null,
  update: ObjectMetaUpdate,
  errors: ObjectMetaErrors<T>,
): { record: T; annotations: Record<string, string>; resourceVersion: number } {
  if (!record) throw errors.notFound();
  errors.checkRecord?.(record);
  if (record.identityProviderId !== update.identityProviderId) throw errors.otherProvider(record.identityProviderId);
  if (update.expectedVersion !== null && update.expectedVersion !== BigInt(record.resourceVersion))
    throw errors.concurrentUpdate();
  const annotations = update.annotations
    ? mergeAnnotations(record.annotations, update.annotations)
    : record.annotations;
  if (annotationsTooLarge(annotations)) throw errors.annotationsTooLarge();
  return { record, annotations, resourceVersion: record.resourceVersion + 1 };
}
