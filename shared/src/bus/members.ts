/**
 * What every service knows of accounts' members without asking it: the local copy of its users (status and
 * nickname), fed by `accounts.user.*`, and the sessions it has revoked, fed by `sessions.revoked`. No service calls
 * accounts on a request path.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { cacheChangedSubject } from './response-cache';
import {
  type Authority,
  type UserType,
  type RefusedStatus,
  type SuspensionLookup,
  ACCESS_TOKEN_TTL_SECONDS,
  REFUSED_STATUSES,
  refusedStatusOf,
} from '../core/auth';
import type { ConsumeHost } from './streams';
import { consume, type EventConsumer } from './events';
import { userSnapshots, type UserSnapshotV1, type UserStatus, sessionsRevoked, type SessionsRevokedV1 } from './events';
import { isDuplicateKeyError, registerModel } from '../store/mongo';
import type { RequestHandler } from 'express';
import type { EventBus } from './connection';
import type { RunningConsumer } from './consume';
import { AppError } from '../core/wire';

export interface ProjectedUser {
  _id: number;
  userName: string;
  nickName: string;
  userType: UserType;
  authority: Authority;
  status: UserStatus;
  version: number;
}

const projectedUserSchema = new Schema<ProjectedUser>(
  {
    _id: { type: Number, required: true },
    userName: { type: String, required: true },
    nickName: { type: String, required: true, index: true },
    userType: { type: String, required: true, index: true },
    authority: { type: String, required: true },
    status: { type: String, required: true },
    version: { type: Number, required: true },
  },
  { versionKey: false, collection: 'users' },
);

export function projectedUserModel(connection: Connection): Model<ProjectedUser> {
  return registerModel(connection, 'ProjectedUser', projectedUserSchema);
}

/** Applies a snapshot unless a newer one is already stored (redelivery and reordering are harmless). */
export async function applyUserSnapshot(
  model: Model<ProjectedUser>,
  snapshot: Pick<UserSnapshotV1, 'id' | 'userName' | 'nick_name' | 'userType' | 'authority' | 'status' | 'version'>,
): Promise<void> {
  const fields = {
    userName: snapshot.userName,
    nickName: snapshot.nick_name,
    userType: snapshot.userType,
    authority: snapshot.authority,
    status: snapshot.status,
    version: snapshot.version,
  };
  try {
    await model.updateOne({ _id: snapshot.id, version: { $lt: snapshot.version } }, { $set: fields }, { upsert: true }).exec();
  } catch (err) {
    // The upsert found a document with a version at least as new: nothing to do.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/**
 * The projection's consumer: one durable per service (`<service>-users`), the last snapshot of every user. An
 * empty projection (a new database) replays every user: a durable left over from an earlier database would only
 * deliver what is new. `runService` starts it for every service with `userProjection: true`.
 */
export function userProjection(options: {
  bus: Pick<ConsumeHost, 'connection' | 'subject'>;
  connection: Connection;
  service: string;
}): EventConsumer<typeof userSnapshots> {
  const model = projectedUserModel(options.connection);
  return consume(userSnapshots, {
    durable: `${options.service}-users`,
    deliverPolicy: 'last_per_subject',
    replayWhen: async () => {
      await model.init();
      return (await model.estimatedDocumentCount().exec()) === 0;
    },
    handle: async (snapshot) => {
      await applyUserSnapshot(model, snapshot);
      projectedUserMemories.get(model)?.forget();
      // Nicknames are in the service's cached answers: every instance forgets them (an announcement without keys
      // forgets everything), now that the change is stored.
      options.bus.connection.publish(options.bus.subject(cacheChangedSubject(options.service)));
    },
  });
}

export const UNKNOWN_NICKNAME = '알 수 없음';
/** How every service shows the author of content whose account was withdrawn (its personal data is erased). */
export const WITHDRAWN_NICKNAME = '탈퇴한 사용자';

/** The nickname to show for a projected user: a withdrawn account is never shown by its (erased) name. */
export function displayNickName(user: Pick<ProjectedUser, 'nickName' | 'status'>): string {
  return user.status === 'WITHDRAWN' ? WITHDRAWN_NICKNAME : user.nickName;
}

/** A user's nickname from a `nickNamesOf` map; a user the projection has not heard of yet shows the fallback. */
export const nickNameIn = (nickNames: ReadonlyMap<number, string>, userId: number): string => nickNames.get(userId) ?? UNKNOWN_NICKNAME;

/**
 * A process's short memory of the users its projection holds: the nicknames and user types answers show (a
 * listing shows its author's), so that a page of boards, listings or notifications, or a listing's detail, costs
 * the store one round trip less (nearly every answer that shows people shows the same few hundred active members);
 * and, from the same read, whether each user's writes are refused, which the write guard asks
 * (`projectedSuspension`): a member's write waits for one round trip less, and a suspension is refused as soon as
 * every instance has heard of it.
 * It is forgotten whole, at once, whenever a snapshot may have changed a name: when this process stores one, and
 * on every announcement that forgets all of the service's cached answers (the projection's announcement, which
 * every instance hears; `ResponseCache.alsoForget`). Like the response cache it never keeps a name read while a
 * change was being stored (a generation), and its lifetimes bound what a lost announcement can cost: the
 * guard's answer 1 s (`PROJECTED_STATUS_MEMORY_MS`, inside the 2 s a suspension may take), the names as long as the answers
 * showing them live while the announcements can be heard (the service's `namesShownBy`; `UNHEARD_TTL_MS` otherwise).
 */
export class ProjectedUserMemory {
  private readonly names = new Map<number, ProjectedUserSeen & { readAt: number }>();
  private generation = 0;

  /**
   * A read answers the write guard's question (`refusedStatus`) for `ttlMs`, and what answers show of the user
   * (`lookup`, `lookupAuthors`) for `namesTtlMs()`, asked at each lookup (longer while the announcements that
   * forget it are heard; `ttlMs` by default). A user whose read is too old for the question asked is read again.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly namesTtlMs: () => number = () => ttlMs,
  ) {}

  forget(): void {
    this.names.clear();
    this.generation++;
  }

  async lookup(model: Model<ProjectedUser>, ids: readonly number[]): Promise<Map<number, string>> {
    const authors = await this.lookupAuthors(model, ids);
    return new Map([...authors].map(([id, author]) => [id, author.nickName]));
  }

  /** The nickname to show and the user type of each user (what a listing shows of its author), like `lookup`. */
  async lookupAuthors(model: Model<ProjectedUser>, ids: readonly number[]): Promise<Map<number, ProjectedAuthor>> {
    const users = await this.lookupUsers(model, ids, this.namesTtlMs());
    const found = new Map<number, ProjectedAuthor>();
    for (const [id, user] of users) if (user.author !== undefined) found.set(id, user.author);
    return found;
  }

  /** The status that refuses the user's writes, if any: the write guard's question, from the same memory. */
  async refusedStatus(model: Model<ProjectedUser>, id: number): Promise<RefusedStatus | undefined> {
    return (await this.lookupUsers(model, [id], this.ttlMs)).get(id)?.refused;
  }

  /** What is known of each user, from a read less than `maxAgeMs` old (the lifetime of the question asked). */
  private async lookupUsers(model: Model<ProjectedUser>, ids: readonly number[], maxAgeMs: number): Promise<Map<number, ProjectedUserSeen>> {
    const found = new Map<number, ProjectedUserSeen>();
    const missing: number[] = [];
    const now = this.now();
    for (const id of ids) {
      const known = this.names.get(id);
      if (known && known.readAt + maxAgeMs > now) found.set(id, known);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const readAt = this.now();
    const read = await readUsers(model, missing);
    const keep = generation === this.generation;
    for (const id of missing) {
      // A user the projection has not heard of yet is remembered as unknown too: the snapshot that brings him forgets it.
      const user = read.get(id) ?? { author: undefined, refused: undefined };
      found.set(id, user);
      if (!keep) continue;
      // Re-inserted so the map stays in the order of the reads: the oldest are at its front (`prune`).
      this.names.delete(id);
      this.names.set(id, { ...user, readAt });
    }
    this.prune(now);
    return found;
  }

  /** Reads older than any use of them are dropped from the front (a process meets many users over a day). */
  private prune(now: number): void {
    const oldest = now - Math.max(this.ttlMs, this.namesTtlMs());
    for (const [id, user] of this.names) {
      if (user.readAt > oldest) break;
      this.names.delete(id);
    }
  }
}

const projectedUserMemories = new WeakMap<Model<ProjectedUser>, ProjectedUserMemory>();

/**
 * Turns the memory of projected users on for a projection (a service's main; tests of the domain read the store every
 * time), or off with a TTL of 0.
 */
export function rememberProjectedUsers(model: Model<ProjectedUser>, ttlMs: number, now?: () => number, namesTtlMs?: () => number): ProjectedUserMemory {
  const memory = new ProjectedUserMemory(ttlMs, now, namesTtlMs);
  if (ttlMs > 0) projectedUserMemories.set(model, memory);
  else projectedUserMemories.delete(model);
  return memory;
}

/** What answers show of an author: the nickname to show (`displayNickName`) and the user type. */
export interface ProjectedAuthor {
  nickName: string;
  userType: UserType;
}

/** What one read of the projection tells of a user: what answers show of him, and whether his writes are refused. */
interface ProjectedUserSeen {
  author: ProjectedAuthor | undefined;
  refused: RefusedStatus | undefined;
}

async function readUsers(model: Model<ProjectedUser>, ids: readonly number[]): Promise<Map<number, ProjectedUserSeen>> {
  const users = await model
    .find({ _id: { $in: ids } }, { nickName: 1, status: 1, userType: 1 })
    .lean()
    .exec();
  return new Map(users.map((u) => [u._id, { author: { nickName: displayNickName(u), userType: u.userType }, refused: refusedStatusOf(u.status) }]));
}

async function readAuthors(model: Model<ProjectedUser>, ids: readonly number[]): Promise<Map<number, ProjectedAuthor>> {
  const authors = new Map<number, ProjectedAuthor>();
  for (const [id, user] of await readUsers(model, ids)) if (user.author) authors.set(id, user.author);
  return authors;
}

/** Nicknames for a set of user ids, in one query at most (withdrawn accounts as WITHDRAWN_NICKNAME). */
export async function nickNamesOf(model: Model<ProjectedUser>, ids: Iterable<number>): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const memory = projectedUserMemories.get(model);
  if (memory) return memory.lookup(model, unique);
  const authors = await readAuthors(model, unique);
  return new Map([...authors].map(([id, author]) => [id, author.nickName]));
}

/**
 * The nickname to show and the user type of a set of users (a listing's author), in one query at most: through
 * the same memory as `nickNamesOf` (both come from the same snapshot, which forgets both).
 */
export async function projectedAuthorsOf(model: Model<ProjectedUser>, ids: Iterable<number>): Promise<Map<number, ProjectedAuthor>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const memory = projectedUserMemories.get(model);
  return memory ? memory.lookupAuthors(model, unique) : readAuthors(model, unique);
}

/**
 * The refusing status the projection knows of a user (the write guard's lookup in every service but accounts):
 * through the memory of projected users where it is turned on (`rememberProjectedUsers`), so it is as fresh as the
 * nicknames answers show: forgotten on every instance once a snapshot is stored, and never older than its TTL.
 */
export function projectedSuspension(connection: Connection): SuspensionLookup {
  const model = projectedUserModel(connection);
  return async (userId) => {
    const memory = projectedUserMemories.get(model);
    if (memory) return memory.refusedStatus(model, userId);
    const user = await model
      .findOne({ _id: userId, status: { $in: [...REFUSED_STATUSES] } }, { status: 1 })
      .lean()
      .exec();
    return user ? (user.status as RefusedStatus) : undefined;
  };
}

/** How long a revocation must be remembered: no access token of the session is valid for longer. */
export const REVOCATIONS_REMEMBERED_MS = ACCESS_TOKEN_TTL_SECONDS * 1000 + 60_000;
const REMEMBER_MS = REVOCATIONS_REMEMBERED_MS;

/**
 * The revoked session ids this process knows, each until every access token of it has expired. One per
 * process (the authentication of every request reads it), fed by `followSessionRevocations` and, in accounts,
 * directly by the revoking request so accounts itself refuses the token at once.
 */
class RevokedSessions {
  private readonly until = new Map<string, number>();

  /** Remembered from now (the revocation feed repeats recent ones: an entry is only ever extended). */
  add(sessionIds: readonly string[], nowMs = Date.now()): void {
    const until = nowMs + REMEMBER_MS;
    for (const id of sessionIds) if ((this.until.get(id) ?? 0) < until) this.until.set(id, until);
    this.prune(nowMs);
  }

  has(sessionId: string, nowMs = Date.now()): boolean {
    const until = this.until.get(sessionId);
    return until !== undefined && until > nowMs;
  }

  /** Entries are added in about time order, so the expired ones are at the front of the map (a late one only waits). */
  private prune(nowMs: number): void {
    for (const [id, until] of this.until) {
      if (until > nowMs) break;
      this.until.delete(id);
    }
  }
}

export const revokedSessions = new RevokedSessions();

export function sessionsRevokedEvent(userId: number, sessionIds: readonly string[], now: Date): SessionsRevokedV1 {
  return sessionsRevoked.build({ userId, sessionIds: [...sessionIds], occurredAt: now.toISOString() });
}

/**
 * Follows `sessions.revoked` from as far back as an access token lives, so a process started after a logout
 * still refuses that session's tokens; then every new revocation, within the broker's delivery time.
 */
export function followSessionRevocations(bus: EventBus): Promise<RunningConsumer> {
  return bus.follow(sessionsRevoked, new Date(Date.now() - REMEMBER_MS), (event) => revokedSessions.add(event.sessionIds));
}

/** 401 J0004 for an access token of a revoked session (runs after `authenticate`). */
export const refuseRevokedSessions: RequestHandler = (req, _res, next) => {
  const sessionId = req.auth?.sessionId;
  if (sessionId !== undefined && revokedSessions.has(sessionId)) throw new AppError('J0004');
  next();
};
