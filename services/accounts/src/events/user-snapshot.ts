import { userSnapshots, type OutboxEvent } from '@binzip/shared';
import type { UserDoc } from '../models';

type SnapshotFields = Pick<UserDoc, '_id' | 'userName' | 'nickName' | 'userType' | 'authority' | 'status' | 'version'>;

/**
 * The `accounts.user.<id>` event for a user state, built before the write that stores it so event and
 * change land in one atomic document update (the outbox).
 */
export function userSnapshotEvent(user: SnapshotFields, now: Date): OutboxEvent {
  return userSnapshots.outbox({
    id: user._id,
    userName: user.userName,
    nick_name: user.nickName,
    userType: user.userType,
    authority: user.authority,
    status: user.status,
    version: user.version,
    occurredAt: now.toISOString(),
  });
}
