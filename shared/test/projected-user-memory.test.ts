import type { Connection } from 'mongoose';
import {
  applyUserSnapshot,
  cacheChangedSubject,
  changedAnnouncement,
  createLogger,
  EventBus,
  nickNamesOf,
  ProjectedUserMemory,
  projectedUserModel,
  rememberProjectedUsers,
  rememberProjectedUsersOfService,
  ResponseCache,
  WITHDRAWN_NICKNAME,
} from '../src';
import { connectTestDb, dropTestDb, eventually, isolatedNames, testEnv, userSnapshot } from '../../test/support';

let connection: Connection;
beforeAll(async () => {
  connection = await connectTestDb(isolatedNames('sharednicknames').db);
});
afterAll(async () => dropTestDb(connection));

/** Renames behind the projection's back: only the memory's own rules decide whether the new name shows. */
const renameInStore = (id: number, nickName: string) => projectedUserModel(connection).updateOne({ _id: id }, { $set: { nickName } }).exec();

describe('ProjectedUserMemory', () => {
  const clock = { ms: 0 };
  const memory = () => new ProjectedUserMemory(1_000, () => clock.ms);
  beforeEach(() => {
    clock.ms = 0;
  });

  it('answers from memory within its TTL (one store read for many lookups), from the store after it', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(701, '기억회원'));
    const names = memory();
    expect((await names.lookup(users, [701])).get(701)).toBe('기억회원');
    await renameInStore(701, '바뀐회원');
    clock.ms = 999;
    expect((await names.lookup(users, [701])).get(701)).toBe('기억회원');
    clock.ms = 1_000;
    expect((await names.lookup(users, [701])).get(701)).toBe('바뀐회원');
  });

  it('forgets everything on forget(), and never keeps a name read while a forget happened', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(702, '첫이름'));
    const names = memory();
    await names.lookup(users, [702]);
    await renameInStore(702, '둘째이름');
    names.forget();
    expect((await names.lookup(users, [702])).get(702)).toBe('둘째이름');

    // A lookup in flight when a change is stored (forget) answers what it read but does not remember it.
    await renameInStore(702, '셋째이름');
    names.forget();
    const inFlight = names.lookup(users, [702]);
    names.forget();
    expect((await inFlight).get(702)).toBe('셋째이름');
    await renameInStore(702, '넷째이름');
    expect((await names.lookup(users, [702])).get(702)).toBe('넷째이름');
  });

  it('remembers a user the projection has not heard of as unknown, until a forget', async () => {
    const users = projectedUserModel(connection);
    const names = memory();
    expect((await names.lookup(users, [703])).has(703)).toBe(false);
    await applyUserSnapshot(users, userSnapshot(703, '새회원'));
    expect((await names.lookup(users, [703])).has(703)).toBe(false);
    names.forget();
    expect((await names.lookup(users, [703])).get(703)).toBe('새회원');
  });
});

describe('nickNamesOf with the memory turned on', () => {
  it('reads the store every time without rememberProjectedUsers, and through the memory with it; a withdrawal shows at once after the forget', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(704, '탈퇴예정'));
    await renameInStore(704, '직접바꿈');
    expect((await nickNamesOf(users, [704])).get(704)).toBe('직접바꿈');
    const names = rememberProjectedUsers(users, 60_000);
    try {
      expect((await nickNamesOf(users, [704, 704])).get(704)).toBe('직접바꿈');
      await renameInStore(704, '안보임');
      expect((await nickNamesOf(users, [704])).get(704)).toBe('직접바꿈');
      await applyUserSnapshot(users, userSnapshot(704, '탈퇴예정', { status: 'WITHDRAWN', version: 5 }));
      names.forget();
      expect((await nickNamesOf(users, [704])).get(704)).toBe(WITHDRAWN_NICKNAME);
    } finally {
      rememberProjectedUsers(users, 0);
    }
  });
});

describe("runService's wiring of the memory (rememberProjectedUsersOfService)", () => {
  let bus: EventBus;
  const names = isolatedNames('sharednicknamewiring');
  beforeAll(async () => {
    bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'nickname-wiring', logger: createLogger('test', 'silent') });
  });
  afterAll(async () => {
    rememberProjectedUsers(projectedUserModel(connection), 0);
    await bus.close();
  });

  /** Whether the memory still answers an old name after a rename made behind its back. */
  async function remembersOldName(id: number): Promise<boolean> {
    return (await nickNamesOf(projectedUserModel(connection), [id])).get(id) === `이름${id}`;
  }
  async function warm(id: number): Promise<void> {
    await applyUserSnapshot(projectedUserModel(connection), userSnapshot(id, `이름${id}`, { version: 1 }));
    await renameInStore(id, `이름${id}`);
    await nickNamesOf(projectedUserModel(connection), [id]);
    await renameInStore(id, `새이름${id}`);
  }

  it('with a response cache: forgotten with everything it forgets, kept when it forgets only some keys', async () => {
    const responseCache = new ResponseCache();
    const stop = rememberProjectedUsersOfService(bus, connection, 'wired', responseCache);
    await warm(711);
    responseCache.forget(['board:1']);
    expect(await remembersOldName(711)).toBe(true);
    responseCache.forget();
    expect(await remembersOldName(711)).toBe(false);
    stop();
  });

  it("with a response cache: names live as long as the answers showing them (past the guard's 1 s) while it hears the announcements, and not while it cannot", async () => {
    const responseCache = new ResponseCache();
    const stop = rememberProjectedUsersOfService(bus, connection, 'wiredlong', responseCache, { name: 'boards', ttlMs: 10_000 });
    try {
      await warm(713);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await remembersOldName(713)).toBe(true);
      // A lost connection forgets everything, and until it is back the names live UNHEARD_TTL_MS (1 s) at most.
      responseCache.connectionStatus('lost');
      await warm(714);
      expect(await remembersOldName(714)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await remembersOldName(714)).toBe(false);
    } finally {
      responseCache.connectionStatus('back');
      stop();
    }
  });

  it("with a response cache but no answers declared to show names: names live as long as the guard's status (1 s)", async () => {
    const responseCache = new ResponseCache();
    const stop = rememberProjectedUsersOfService(bus, connection, 'wiredshort', responseCache);
    try {
      await warm(715);
      expect(await remembersOldName(715)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await remembersOldName(715)).toBe(false);
    } finally {
      stop();
    }
  });

  it("without one: forgotten by the service's announcements that name no keys, kept by those that do", async () => {
    const stop = rememberProjectedUsersOfService(bus, connection, 'unwired', undefined);
    await warm(712);
    const subject = bus.subject(cacheChangedSubject('unwired'));
    bus.connection.publish(subject, changedAnnouncement(['board:1']));
    await bus.connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await remembersOldName(712)).toBe(true);
    bus.connection.publish(subject);
    // Well inside the memory's 1 s: only the announcement can have made it forget.
    await eventually(async () => (await remembersOldName(712)) === false, 500);
    stop();
  });
});
