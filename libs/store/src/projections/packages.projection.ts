import { sql } from 'kysely';
import { PACKAGE_VETTING_CHANGED, PACKAGES_UPLOADED } from '@ledgerline/domain';
import { projection } from './projection';

/**
 * Stored packages and this participant's vetting. An `apply` projection: an upload's decision reads what the uploads
 * before it in the same transaction stored and vetted.
 */
export const packagesProjection = projection({
  name: 'packages',
  tables: ['packages', 'package_vetting', 'package_vetting_serials'],
  handles: [PACKAGES_UPLOADED, PACKAGE_VETTING_CHANGED],
  async apply(trx, event) {
    if (event.type === PACKAGES_UPLOADED) {
      const data = event.data;
      await trx
        .insertInto('packages')
        .values(
          data.packages.map((p) => ({
            package_id: p.packageId,
            package_name: p.name,
            package_version: p.version,
            lf_version: p.lfVersion,
            size_bytes: p.sizeBytes,
            imports: p.imports,
            templates: p.templates ?? null,
            uploaded_at: event.recordedAt,
            uploaded_seq: event.seq,
          })),
        )
        .execute();
      return;
    }
    const data = event.data;
    await trx.deleteFrom('package_vetting').where('synchronizer_id', '=', data.synchronizerId).execute();
    if (data.packages.length) {
      await trx
        .insertInto('package_vetting')
        .values(
          data.packages.map((p) => ({
            synchronizer_id: data.synchronizerId,
            package_id: p.packageId,
            valid_from_inclusive: p.validFromInclusive,
            valid_until_exclusive: p.validUntilExclusive,
          })),
        )
        .execute();
    }
    await trx
      .insertInto('package_vetting_serials')
      .values({ synchronizer_id: data.synchronizerId, serial: data.serial })
      .onConflict((oc) => oc.column('synchronizer_id').doUpdateSet({ serial: sql<number>`excluded.serial` }))
      .execute();
  },
});
