import type { Kysely } from 'kysely';
import type { PackageDirectory, PackageInfo, VettingState } from '@ledgerline/domain';
import type { DB } from '../schema';

/** Archive bytes are kept in chunks of this size (a download holds one chunk at a time). */
export const ARCHIVE_CHUNK_BYTES = 256 * 1024;

export interface StoredPackage extends PackageInfo {
  uploadedAt: string;
}

const infoOf = (r: {
  package_id: string;
  package_name: string;
  package_version: string;
  lf_version: string;
  size_bytes: number | string;
  imports: string[] | null;
  templates: string[] | null;
  uploaded_at: string;
}): StoredPackage => ({
  packageId: r.package_id,
  name: r.package_name,
  version: r.package_version,
  lfVersion: r.lf_version,
  sizeBytes: Number(r.size_bytes),
  imports: r.imports,
  templates: r.templates,
  uploadedAt: r.uploaded_at,
});

/** Reads of the packages projection and of the archive store, and the archive writes. */
export class PackagesRepository {
  /** Every stored package id (upload order). */
  async ids(db: Kysely<DB>): Promise<string[]> {
    return (
      await db.selectFrom('packages').select('package_id').orderBy('uploaded_seq').orderBy('package_id').execute()
    ).map((r) => r.package_id);
  }

  async all(db: Kysely<DB>): Promise<StoredPackage[]> {
    return (await db.selectFrom('packages').selectAll().orderBy('uploaded_seq').orderBy('package_id').execute()).map(
      infoOf,
    );
  }

  async byNames(db: Kysely<DB>, names: readonly string[]): Promise<StoredPackage[]> {
    if (names.length === 0) return [];
    return (
      await db
        .selectFrom('packages')
        .selectAll()
        .where('package_name', 'in', [...names])
        .execute()
    ).map(infoOf);
  }

  /** The stored packages with any of these ids or names. */
  async packagesFor(db: Kysely<DB>, ids: readonly string[], names: readonly string[]): Promise<StoredPackage[]> {
    if (ids.length === 0 && names.length === 0) return [];
    const rows = await db
      .selectFrom('packages')
      .selectAll()
      .where((eb) =>
        eb.or([
          ...(ids.length ? [eb('package_id', 'in', [...ids])] : []),
          ...(names.length ? [eb('package_name', 'in', [...names])] : []),
        ]),
      )
      .execute();
    return rows.map(infoOf);
  }

  async get(db: Kysely<DB>, id: string): Promise<StoredPackage | null> {
    const row = await db.selectFrom('packages').selectAll().where('package_id', '=', id).executeTakeFirst();
    return row ? infoOf(row) : null;
  }

  /** Which of `ids` are stored. */
  async stored(db: Kysely<DB>, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db
      .selectFrom('packages')
      .select('package_id')
      .where('package_id', 'in', [...ids])
      .execute();
    return new Set(rows.map((r) => r.package_id));
  }

  /** This participant's vetting state on each synchronizer of `synchronizerIds` (serial 0: none yet). */
  async vetting(db: Kysely<DB>, synchronizerIds: readonly string[]): Promise<VettingState[]> {
    if (synchronizerIds.length === 0) return [];
    const [serials, rows] = await Promise.all([
      db
        .selectFrom('package_vetting_serials')
        .selectAll()
        .where('synchronizer_id', 'in', [...synchronizerIds])
        .execute(),
      db
        .selectFrom('package_vetting')
        .selectAll()
        .where('synchronizer_id', 'in', [...synchronizerIds])
        .orderBy('package_id')
        .execute(),
    ]);
    return synchronizerIds.map((id) => ({
      synchronizerId: id,
      serial: serials.find((s) => s.synchronizer_id === id)?.serial ?? 0,
      packages: rows
        .filter((r) => r.synchronizer_id === id)
        .map((r) => ({
          packageId: r.package_id,
          validFromInclusive: r.valid_from_inclusive,
          validUntilExclusive: r.valid_until_exclusive,
        })),
    }));
  }

  /** Writes an archive's payload in chunks (a package id is written once: a second write of the same id changes nothing). */
  async writeArchive(db: Kysely<DB>, packageId: string, payload: Uint8Array): Promise<void> {
    const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    for (let chunk = 0, at = 0; at < bytes.length || chunk === 0; chunk++, at += ARCHIVE_CHUNK_BYTES) {
      await db
        .insertInto('package_archives')
        .values({ package_id: packageId, chunk, bytes: bytes.subarray(at, at + ARCHIVE_CHUNK_BYTES) })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }

  /** The archive's chunks in order, read one at a time. */
  async *archiveChunks(db: Kysely<DB>, packageId: string): AsyncGenerator<Buffer> {
    for (let chunk = 0; ; chunk++) {
      const row = await db
        .selectFrom('package_archives')
        .select('bytes')
        .where('package_id', '=', packageId)
        .where('chunk', '=', chunk)
        .executeTakeFirst();
      if (!row) return;
      yield row.bytes;
    }
  }
}

/** The package store as template resolution reads it. */
export function packageDirectoryOf(db: Kysely<DB>, packages = new PackagesRepository()): PackageDirectory {
  return {
    packagesFor: (ids, names) => packages.packagesFor(db, ids, names),
    vetting: (synchronizerIds) => packages.vetting(db, synchronizerIds),
  };
}
