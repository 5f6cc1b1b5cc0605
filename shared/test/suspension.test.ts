import request from 'supertest';
import type { Connection } from 'mongoose';
import {
  applyUserSnapshot,
  createLogger,
  createServiceApp,
  handle,
  nickNamesOf,
  projectedSuspension,
  projectedUserModel,
  rememberProjectedUsers,
  WITHDRAWN_NICKNAME,
} from '../src';
import { bearer, connectTestDb, dropTestDb, isolatedNames, testEnv, userSnapshot } from '../../test/support';

let connection: Connection;
beforeAll(async () => {
  connection = await connectTestDb(isolatedNames('sharedsuspension').db);
});
afterAll(async () => dropTestDb(connection));

function app() {
  return createServiceApp({
    service: 'test',
    logger: createLogger('test', 'silent'),
    publicKey: testEnv().publicKey,
    isSuspended: projectedSuspension(connection),
    routes: (a) => {
      a.get(
        '/thing',
        handle(() => 'read'),
      );
      for (const method of ['post', 'put', 'delete'] as const)
        a[method](
          '/thing',
          handle(() => method),
        );
    },
  });
}

describe('the suspended-writer guard (createServiceApp isSuspended + the user projection)', () => {
  it('refuses POST, PUT and DELETE of a projected SUSPENDED member with 403 U0012; reads, others and lifting pass', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(501, '정지회원', { status: 'SUSPENDED', version: 2 }));
    await applyUserSnapshot(users, userSnapshot(502, '보통회원'));
    const service = app();
    const write = (method: 'post' | 'put' | 'delete', userId?: number) => {
      const test = request(service)[method]('/thing');
      return userId === undefined ? test : test.set('Authorization', bearer({ userId }));
    };
    for (const method of ['post', 'put', 'delete'] as const) {
      const res = await write(method, 501);
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { code: 'U0012', message: '이용이 정지된 계정입니다.' } });
      await write(method, 502).expect(200);
      await write(method).expect(200);
    }
    await request(service)
      .get('/thing')
      .set('Authorization', bearer({ userId: 501 }))
      .expect(200);
    await applyUserSnapshot(users, userSnapshot(501, '정지회원', { status: 'ACTIVE', version: 3 }));
    await request(service)
      .post('/thing')
      .set('Authorization', bearer({ userId: 501 }))
      .expect(200);
  });
});

describe('a withdrawn account (issue 19 item 1)', () => {
  it('writes with its access token are 401 J0004 once the projection knows of the withdrawal; nothing brings it back', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(511, '떠날회원'));
    const service = app();
    const as511 = (method: 'post' | 'put' | 'delete') => {
      const test = request(service)[method]('/thing');
      return test.set('Authorization', bearer({ userId: 511 }));
    };
    await as511('post').expect(200);
    await applyUserSnapshot(users, userSnapshot(511, 'withdrawn:511', { status: 'WITHDRAWN', userName: 'withdrawn:511', version: 3 }));
    for (const method of ['post', 'put', 'delete'] as const) {
      const res = await as511(method);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'J0004' });
    }
    // An older snapshot arriving late cannot revive it (latest version wins).
    await applyUserSnapshot(users, userSnapshot(511, '떠날회원', { status: 'ACTIVE', version: 2 }));
    expect((await as511('post')).status).toBe(401);
  });
});

describe('nickNamesOf', () => {
  it('shows a withdrawn account as 탈퇴한 사용자', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(601, '떠날회원'));
    await applyUserSnapshot(users, userSnapshot(601, 'withdrawn:601', { status: 'WITHDRAWN', userName: 'withdrawn:601', version: 3 }));
    await applyUserSnapshot(users, userSnapshot(602, '남은회원'));
    expect(await nickNamesOf(users, [601, 602])).toEqual(
      new Map([
        [601, WITHDRAWN_NICKNAME],
        [602, '남은회원'],
      ]),
    );
    expect(WITHDRAWN_NICKNAME).toBe('탈퇴한 사용자');
  });
});

describe('the guard asks the memory of projected users where it is turned on (issue 42)', () => {
  /** Changes the status behind the projection's back: only the memory's own rules decide what the guard sees. */
  const setStatusInStore = (id: number, status: string) => projectedUserModel(connection).updateOne({ _id: id }, { $set: { status } }).exec();

  it('answers from the read that brought the nickname, and refuses a suspension once the memory is forgotten', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(521, '기억될회원'));
    const memory = rememberProjectedUsers(users, 60_000);
    try {
      const service = app();
      const post = () =>
        request(service)
          .post('/thing')
          .set('Authorization', bearer({ userId: 521 }));
      // A page showing the member's nickname read him: the guard's question needs no read of its own.
      expect((await nickNamesOf(users, [521])).get(521)).toBe('기억될회원');
      await setStatusInStore(521, 'SUSPENDED');
      await post().expect(200);
      // The projection's consumer forgets the memory when it stores a snapshot, and announces it to every instance.
      memory.forget();
      expect((await post()).body.code).toBe('U0012');
      await setStatusInStore(521, 'WITHDRAWN');
      memory.forget();
      expect((await post()).status).toBe(401);
      await setStatusInStore(521, 'ACTIVE');
      memory.forget();
      await post().expect(200);
    } finally {
      rememberProjectedUsers(users, 0);
    }
  });

  it('never answers from memory older than its TTL', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(522, '시간회원'));
    const clock = { ms: 0 };
    rememberProjectedUsers(users, 1_000, () => clock.ms);
    try {
      const guard = projectedSuspension(connection);
      expect(await guard(522)).toBeUndefined();
      await setStatusInStore(522, 'SUSPENDED');
      clock.ms = 999;
      expect(await guard(522)).toBeUndefined();
      clock.ms = 1_000;
      expect(await guard(522)).toBe('SUSPENDED');
    } finally {
      rememberProjectedUsers(users, 0);
    }
  });

  it('keeps the guard to its own TTL when the names live longer: a read the names still use is read again for the guard', async () => {
    const users = projectedUserModel(connection);
    await applyUserSnapshot(users, userSnapshot(523, '오래된이름'));
    const clock = { ms: 0 };
    rememberProjectedUsers(
      users,
      1_000,
      () => clock.ms,
      () => 10_000,
    );
    try {
      const guard = projectedSuspension(connection);
      expect((await nickNamesOf(users, [523])).get(523)).toBe('오래된이름');
      await projectedUserModel(connection)
        .updateOne({ _id: 523 }, { $set: { status: 'SUSPENDED', nickName: '새이름' } })
        .exec();
      clock.ms = 999;
      expect(await guard(523)).toBeUndefined();
      clock.ms = 1_000;
      expect(await guard(523)).toBe('SUSPENDED');
      // The guard's read brought the new name too; a read only the names may use is kept for their 10 s.
      expect((await nickNamesOf(users, [523])).get(523)).toBe('새이름');
      await projectedUserModel(connection)
        .updateOne({ _id: 523 }, { $set: { nickName: '셋째이름' } })
        .exec();
      clock.ms = 10_999;
      expect((await nickNamesOf(users, [523])).get(523)).toBe('새이름');
      clock.ms = 11_000;
      expect((await nickNamesOf(users, [523])).get(523)).toBe('셋째이름');
    } finally {
      rememberProjectedUsers(users, 0);
    }
  });
});
