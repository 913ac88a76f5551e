import { alreadyExists, invalidField, notFound } from '../errors';
import { Right, rightKey } from '../auth/rights';
import { UserEvent, UserRecord, userStream } from './events';

/** User ids: 1–128 characters, ASCII alphanumerics or one of `@^$.!\`-#+'~_|:()`. */
const USER_ID = /^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/;

export function validateUserId(id: string, field = 'user_id'): void {
  if (!id) throw invalidField(field, 'Expected a non-empty string');
  if (!USER_ID.test(id)) {
    throw invalidField(field, `User ID "${id}" does not match regex "[a-zA-Z0-9@^$.!\`\\-#+'~_|:()]{1,128}"`);
  }
}

export const userNotFound = (id: string) =>
  notFound('USER_NOT_FOUND', `getting user failed for unknown user "${id}"`, [['USER', id]]);

/** The state a user decision needs: the stored user (if any) and its rights. */
export interface UserState {
  user: UserRecord | null;
  rights: Right[];
}

export function decideCreateUser(state: UserState, user: UserRecord, rights: Right[]): UserEvent[] {
  validateUserId(user.id, 'user.id');
  if (state.user) {
    throw alreadyExists('USER_ALREADY_EXISTS', `creating user failed, as user "${user.id}" already exists`, [
      ['USER', user.id],
    ]);
  }
  return [{ type: 'UserCreated', stream: userStream(user.id), data: { user, rights: dedupeRights(rights) } }];
}

export function decideGrantRights(
  state: UserState,
  userId: string,
  rights: Right[],
): { events: UserEvent[]; newlyGranted: Right[] } {
  if (!state.user) throw userNotFound(userId);
  const held = new Set(state.rights.map(rightKey));
  const newlyGranted = dedupeRights(rights).filter((r) => !held.has(rightKey(r)));
  const events: UserEvent[] = newlyGranted.length
    ? [{ type: 'UserRightsGranted', stream: userStream(userId), data: { userId, rights: newlyGranted } }]
    : [];
  return { events, newlyGranted };
}

export function decideRevokeRights(
  state: UserState,
  userId: string,
  rights: Right[],
): { events: UserEvent[]; newlyRevoked: Right[] } {
  if (!state.user) throw userNotFound(userId);
  const held = new Set(state.rights.map(rightKey));
  const newlyRevoked = dedupeRights(rights).filter((r) => held.has(rightKey(r)));
  const events: UserEvent[] = newlyRevoked.length
    ? [{ type: 'UserRightsRevoked', stream: userStream(userId), data: { userId, rights: newlyRevoked } }]
    : [];
  return { events, newlyRevoked };
}

export function decideDeleteUser(state: UserState, userId: string): UserEvent[] {
  if (!state.user) throw userNotFound(userId);
  return [{ type: 'UserDeleted', stream: userStream(userId), data: { userId } }];
}

export function dedupeRights(rights: Right[]): Right[] {
  const seen = new Set<string>();
  return rights.filter((r) => {
    const k = rightKey(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
