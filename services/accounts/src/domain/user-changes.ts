import { AppError, CONFLICT, isDuplicateKeyError, nextId, retryOnConflict, type ErrorCode, type OutboxEvent } from '@binzip/shared';
import type { UpdateQuery } from 'mongoose';
import { userSnapshotEvent } from '../events/user-snapshot';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { findUser } from './user-lookup';

/**
 * The one owner of writes to a user document: every way a user comes to be or changes is declared here, with
 * who makes it and which fields it writes, and goes through `createUser` or `changeUser`. (The report counters
 * that houses' events keep, domain/house-reports.ts, are outside the snapshot and the members' rules.)
 *
 * The rule for the other services: they keep a projection of the snapshot (shared/src/bus/members.ts). A user's first
 * write publishes its snapshot at version 1; a change publishes a new snapshot (version + 1) exactly when one of
 * SNAPSHOT_FIELDS takes a new value, and never otherwise. The event is stored in the same single-document write
 * as the change (the outbox), so a change is never stored without its event nor published without being stored.
 */
export const USER_CREATIONS = {
  memberSignUp: { by: 'member' },
  agentSignUp: { by: 'member' },
  /** The admin CLI and ADMIN_BOOTSTRAP: administrators never come from sign-up. */
  administratorCreation: { by: 'operator' },
} as const satisfies Record<string, { by: Actor }>;

export const USER_CHANGES = {
  nickName: { by: 'member', writes: ['nickName'] },
  password: { by: 'member', writes: ['passwordHash'] },
  phone: { by: 'member', writes: ['phoneNum'] },
  email: { by: 'member', writes: ['email'] },
  /** PUT /api/v1/users: several of the above at once. */
  profile: { by: 'member', writes: ['nickName', 'passwordHash', 'phoneNum'] },
  withdrawalRequest: { by: 'member', writes: ['status', 'withdrawal'] },
  suspension: { by: 'administrator', writes: ['status', 'suspension'] },
  suspensionLift: { by: 'administrator', writes: ['status', 'suspension'] },
  withdrawalCompletion: { by: 'administrator', writes: ['status', 'userName', 'nickName', 'phoneNum', 'email', 'passwordHash', 'agent', 'suspension'] },
} as const satisfies Record<string, { by: Actor; writes: ReadonlyArray<keyof UserDoc> }>;

type Actor = 'member' | 'administrator' | 'operator';
export type UserCreationKind = keyof typeof USER_CREATIONS;
export type UserChangeKind = keyof typeof USER_CHANGES;
/** What a change of a kind may set: its declared fields only. */
export type UserChangeOf<K extends UserChangeKind> = Partial<Pick<UserDoc, (typeof USER_CHANGES)[K]['writes'][number]>>;

/** What the other services keep of a user (ProjectedUser in shared), besides its id and version. */
export const SNAPSHOT_FIELDS = ['userName', 'nickName', 'userType', 'authority', 'status'] as const;
type SnapshotField = (typeof SNAPSHOT_FIELDS)[number];

// The event is built from exactly these fields: a field added to one and not the other fails to compile.
type EventFields = Exclude<keyof Parameters<typeof userSnapshotEvent>[0], '_id' | 'version'>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const snapshotFieldsMatchTheEvent: Same<EventFields, SnapshotField> = true;
void snapshotFieldsMatchTheEvent;

/** The snapshot fields a kind of change can give a new value: those its publication must carry to the projections. */
export function projectedFieldsOf(kind: UserChangeKind): SnapshotField[] {
  const writes: readonly string[] = USER_CHANGES[kind].writes;
  return SNAPSHOT_FIELDS.filter((field) => writes.includes(field));
}

/** What creating a user needs; the admin CLI builds only this much (it has no keys or senders). */
export type UserWriteContext = Pick<AccountsContext, 'models' | 'now' | 'eventsPending' | 'passwords'>;

interface UniqueFields {
  userName?: string;
  nickName?: string;
  phoneNum?: string;
  email?: string;
}

/** Checked in this order, so the first clash decides the error (decisions.md: userName, nick_name, phone). */
const UNIQUE_ORDER: Array<[keyof UniqueFields, ErrorCode]> = [
  ['userName', 'U0007'],
  ['nickName', 'U0005'],
  ['phoneNum', 'U0000'],
  ['email', 'U0010'],
];

async function firstClash(ctx: Pick<UserWriteContext, 'models'>, fields: UniqueFields, exceptUserId?: number): Promise<ErrorCode | undefined> {
  for (const [field, code] of UNIQUE_ORDER) {
    const value = fields[field];
    if (value === undefined) continue;
    const filter = exceptUserId === undefined ? { [field]: value } : { [field]: value, _id: { $ne: exceptUserId } };
    if (await ctx.models.users.exists(filter).exec()) return code;
  }
  return undefined;
}

/** Answers U0007 / U0005 / U0000 / U0010 when another user has one of the values. */
export async function assertUnique(ctx: Pick<UserWriteContext, 'models'>, fields: UniqueFields, exceptUserId?: number): Promise<void> {
  const clash = await firstClash(ctx, fields, exceptUserId);
  if (clash) throw new AppError(clash);
}

/** A unique index fired after the pre-check passed (two requests raced): answer what the pre-check would have. */
async function rethrowDuplicate(ctx: Pick<UserWriteContext, 'models'>, err: unknown, fields: UniqueFields, exceptUserId?: number): Promise<never> {
  if (isDuplicateKeyError(err)) {
    const clash = await firstClash(ctx, fields, exceptUserId);
    if (clash) throw new AppError(clash);
  }
  throw err;
}

const uniqueFieldsOf = (fields: UniqueFields): UniqueFields => ({
  userName: fields.userName,
  nickName: fields.nickName,
  phoneNum: fields.phoneNum,
  email: fields.email,
});

export type NewUser = Omit<UserDoc, '_id' | 'version' | 'createdAt' | 'updatedAt' | 'pendingEvents' | 'status' | 'profileImageUrl' | 'withdrawal'>;

/**
 * Stores a new, active user with its first snapshot. `afterUniqueCheck` runs between the duplicate check and the
 * write (sign-up's verified contacts), so a registered value is reported before anything else.
 */
export async function createUser(
  ctx: UserWriteContext,
  kind: UserCreationKind,
  fields: NewUser,
  afterUniqueCheck?: () => Promise<void>,
): Promise<Omit<UserDoc, 'pendingEvents'>> {
  const unique = uniqueFieldsOf(fields);
  await assertUnique(ctx, unique);
  await afterUniqueCheck?.();
  const now = ctx.now();
  const user: Omit<UserDoc, 'pendingEvents'> = {
    ...fields,
    _id: await nextId(ctx.models.users.db, 'user'),
    status: 'ACTIVE',
    profileImageUrl: null,
    withdrawal: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.models.users.create({ ...user, pendingEvents: [userSnapshotEvent(user, now)] });
  } catch (err) {
    await rethrowDuplicate(ctx, err, unique);
  }
  ctx.eventsPending();
  return user;
}

/**
 * Every lost compare-and-set means another change of this user landed, so N concurrent changes settle in at
 * most N attempts; beyond this the caller is told to retry (429 C0004), never a 500.
 */
const MAX_CHANGE_ATTEMPTS = 32;

/** A completed withdrawal is final: no change may bring the erased account back. */
const WITHDRAWN_ANSWER: Record<Exclude<Actor, 'operator'>, () => AppError> = {
  // The member's own token is refused as the erased account's.
  member: () => new AppError('J0004'),
  administrator: () => AppError.notFound(),
};

/**
 * Applies a change of `kind` computed from the current document (undefined or {} for none), with one
 * compare-and-set: the write requires the version and the password hash the change was computed from. The
 * version grows with every published snapshot; the password hash makes a decision that checked the (current or
 * same-as-new) password fail to land after the password changed, so parallel double submissions answer as
 * sequential ones do (U0002, U0006). A change to WITHDRAWN replaces the unsent snapshots: they hold erased data,
 * and snapshots are latest-wins.
 */
export async function changeUser<K extends UserChangeKind>(
  ctx: Pick<AccountsContext, 'models' | 'now' | 'eventsPending'>,
  kind: K,
  userId: number,
  compute: (user: UserDoc) => Promise<UserChangeOf<K> | undefined> | UserChangeOf<K> | undefined,
  /**
   * An administrator's change carries its audit entry (issue 40) in the same write: built from the user as the
   * change was computed from, and only when there is a change (a no-op is no action).
   */
  audit?: (user: UserDoc) => OutboxEvent,
): Promise<void> {
  const declared = USER_CHANGES[kind];
  const writable: readonly string[] = declared.writes;
  await retryOnConflict(
    async () => {
      const user = await findUser(ctx, userId);
      if (user.status === 'WITHDRAWN') throw WITHDRAWN_ANSWER[declared.by]();
      const change: Partial<UserDoc> | undefined = await compute(user);
      if (!change || Object.keys(change).length === 0) return;
      const undeclared = Object.keys(change).filter((field) => !writable.includes(field));
      if (undeclared.length > 0) throw new Error(`user change ${kind} writes undeclared fields: ${undeclared.join(', ')}`);

      const now = ctx.now();
      const next: UserDoc = { ...user, ...change };
      const publishes = SNAPSHOT_FIELDS.some((field) => next[field] !== user[field]);
      const audited = audit ? [audit(user)] : [];
      let update: UpdateQuery<UserDoc> = { $set: { ...change, updatedAt: now } };
      if (publishes) {
        const version = user.version + 1;
        const event = userSnapshotEvent({ ...next, version }, now);
        update =
          next.status === 'WITHDRAWN'
            ? { $set: { ...change, version, updatedAt: now, pendingEvents: [...audited, event] } }
            : { $set: { ...change, version, updatedAt: now }, $push: { pendingEvents: { $each: [...audited, event] } } };
      } else if (audited.length > 0) {
        update = { ...update, $push: { pendingEvents: { $each: audited } } };
      }
      try {
        const result = await ctx.models.users.updateOne({ _id: userId, version: user.version, passwordHash: user.passwordHash }, update).exec();
        if (result.matchedCount !== 1) return CONFLICT;
      } catch (err) {
        await rethrowDuplicate(ctx, err, uniqueFieldsOf(change), userId);
      }
      if (publishes || audited.length > 0) ctx.eventsPending();
    },
    { attempts: MAX_CHANGE_ATTEMPTS },
  );
}
