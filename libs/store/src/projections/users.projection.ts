import {
  USER_CREATED,
  USER_DELETED,
  USER_IDENTITY_PROVIDER_CHANGED,
  USER_RIGHTS_GRANTED,
  USER_RIGHTS_REVOKED,
  USER_UPDATED,
  type Right,
} from '@ledgerline/domain';
import { projection } from './projection';

const rightRow = (userId: string, r: Right) => ({ user_id: userId, kind: r.kind, party: 'party' in r ? r.party : '' });

export const usersProjection = projection({
  name: 'users',
  tables: ['users', 'user_rights'],
  handles: [
    USER_CREATED,
    USER_RIGHTS_GRANTED,
    USER_RIGHTS_REVOKED,
    USER_UPDATED,
    USER_IDENTITY_PROVIDER_CHANGED,
    USER_DELETED,
  ],
  async apply(trx, e) {
    switch (e.type) {
      case USER_CREATED: {
        const u = e.data.user;
        await trx
          .insertInto('users')
          .values({
            id: u.id,
            primary_party: u.primaryParty,
            is_deactivated: u.isDeactivated,
            annotations: JSON.stringify(u.annotations),
            identity_provider_id: u.identityProviderId,
            primary_party_authentication: u.primaryPartyAuthentication ?? false,
            created_seq: e.seq,
          })
          .execute();
        if (e.data.rights.length)
          await trx
            .insertInto('user_rights')
            .values(e.data.rights.map((r) => rightRow(u.id, r)))
            .onConflict((oc) => oc.doNothing())
            .execute();
        return;
      }
      case USER_RIGHTS_GRANTED:
        await trx
          .insertInto('user_rights')
          .values(e.data.rights.map((r) => rightRow(e.data.userId, r)))
          .onConflict((oc) => oc.doNothing())
          .execute();
        return;
      case USER_RIGHTS_REVOKED:
        for (const r of e.data.rights) {
          const row = rightRow(e.data.userId, r);
          await trx
            .deleteFrom('user_rights')
            .where('user_id', '=', row.user_id)
            .where('kind', '=', row.kind)
            .where('party', '=', row.party)
            .execute();
        }
        return;
      case USER_UPDATED: {
        const u = e.data.user;
        await trx
          .updateTable('users')
          .set({
            primary_party: u.primaryParty,
            is_deactivated: u.isDeactivated,
            annotations: JSON.stringify(u.annotations),
            primary_party_authentication: u.primaryPartyAuthentication ?? false,
            resource_version: e.data.resourceVersion,
          })
          .where('id', '=', u.id)
          .execute();
        return;
      }
      case USER_IDENTITY_PROVIDER_CHANGED:
        await trx
          .updateTable('users')
          .set({ identity_provider_id: e.data.identityProviderId })
          .where('id', '=', e.data.userId)
          .execute();
        return;
      case USER_DELETED:
        await trx.deleteFrom('user_rights').where('user_id', '=', e.data.userId).execute();
        await trx.deleteFrom('users').where('id', '=', e.data.userId).execute();
        return;
    }
  },
});
