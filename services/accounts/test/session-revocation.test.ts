import { BEARER_PREFIX, sessionsRevoked, verifyAccessJwt } from '@binzip/shared';
import request from 'supertest';
import { expectError, testEnv } from '../../../test/support';
import { refreshCookieValue, signUp, signedIn, startAccountsHarness, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctrevoke');
});
afterAll(async () => h.close());
afterEach(() => {
  h.clockAt(0);
});

const reissue = (refresh: string, accessToken: string) =>
  request(h.app).post('/api/v1/users/reissue').set('Cookie', `RefreshToken=${refresh}`).send({ access_token: accessToken });

interface Session {
  bearer: string;
  refresh: string;
}

/** Reissues and returns the new session; fails the test unless it succeeded. */
async function rotate(session: Session): Promise<Session> {
  const res = await reissue(session.refresh, session.bearer);
  expect(res.status).toBe(200);
  return { bearer: res.body.data.access_token, refresh: refreshCookieValue(res.headers['set-cookie']) };
}

const NEW_PASSWORD = 'N3wPassw0rd!';

describe('two reissues with one cookie at the same moment (two tabs)', () => {
  it('both succeed, with distinct new cookies that keep working: the family is not revoked', async () => {
    for (let round = 0; round < 5; round++) {
      const { bearer, refresh } = await signedIn(h.app);
      const results = await Promise.all([reissue(refresh, bearer), reissue(refresh, bearer), reissue(refresh, bearer)]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      const successors = results.map((r) => ({ bearer: r.body.data.access_token as string, refresh: refreshCookieValue(r.headers['set-cookie']) }));
      expect(new Set(successors.map((s) => s.refresh)).size).toBe(3);
      for (const successor of successors) await rotate(successor);
    }
  });

  it('a second use within 2 seconds of the rotation is a race; after 2 seconds it is reuse and revokes the family', async () => {
    const first = await signedIn(h.app);
    const winner = await rotate(first);
    // The clock is real time plus the offset, so stay a little inside the window, then step past it.
    h.clockAt(1_500);
    const loser = await rotate(first);
    h.clockAt(2_500);
    expectError(await reissue(first.refresh, first.bearer), 401, 'J0004');
    expectError(await reissue(winner.refresh, winner.bearer), 401, 'J0004');
    expectError(await reissue(loser.refresh, loser.bearer), 401, 'J0004');
  });

  it('a reuse after 2 seconds that races a fresh reissue of the successor still ends the family', async () => {
    const first = await signedIn(h.app);
    const second = await rotate(first);
    h.clockAt(5_000);
    const [reuse, fresh] = await Promise.all([reissue(first.refresh, first.bearer), reissue(second.refresh, second.bearer)]);
    expectError(reuse, 401, 'J0004');
    if (fresh.status === 200) {
      expectError(await reissue(refreshCookieValue(fresh.headers['set-cookie']), fresh.body.data.access_token), 401, 'J0004');
    }
  });
});

describe('a password change ends every other session of the member', () => {
  async function threeSessions() {
    const body = await signUp(h.app);
    const [mine, laptop, phone] = [await signedIn(h.app, body), await signedIn(h.app, body), await signedIn(h.app, body)];
    // One of the others has already rotated: its family must end too, whatever token it is at.
    const rotatedLaptop = await rotate(laptop);
    return { body, mine, laptop: rotatedLaptop, phone };
  }

  it('PUT update/password: the caller keeps its session (cookie sent), the others get 401 at reissue', async () => {
    const { body, mine, laptop, phone } = await threeSessions();
    await request(h.app)
      .put('/api/v1/users/update/password')
      .set('Authorization', mine.bearer)
      .set('Cookie', `RefreshToken=${mine.refresh}`)
      .send({ password: NEW_PASSWORD })
      .expect(200);
    expectError(await reissue(laptop.refresh, laptop.bearer), 401, 'J0004');
    expectError(await reissue(phone.refresh, phone.bearer), 401, 'J0004');
    await rotate(await rotate(mine));
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: body.userName, password: body.password }), 400, 'U0002');
    await request(h.app).post('/api/v1/users/sign-in').send({ userName: body.userName, password: NEW_PASSWORD }).expect(200);
  });

  it('PUT update/password without a cookie ends every session but the one its access token names (sid)', async () => {
    const { mine, laptop, phone } = await threeSessions();
    await request(h.app).put('/api/v1/users/update/password').set('Authorization', mine.bearer).send({ password: NEW_PASSWORD }).expect(200);
    for (const session of [laptop, phone]) {
      expectError(await reissue(session.refresh, session.bearer), 401, 'J0004');
      expectError(await request(h.app).get('/api/v1/users').set('Authorization', session.bearer), 401, 'J0004');
    }
    expect((await request(h.app).get('/api/v1/users').set('Authorization', mine.bearer)).status).toBe(200);
    await rotate(mine);
  });

  it('a cookie of another member saves none of the caller’s other sessions (only the access token’s own)', async () => {
    const { mine, laptop } = await threeSessions();
    const stranger = await signedIn(h.app);
    await request(h.app)
      .put('/api/v1/users/update/password')
      .set('Authorization', mine.bearer)
      .set('Cookie', `RefreshToken=${stranger.refresh}`)
      .send({ password: NEW_PASSWORD })
      .expect(200);
    expectError(await reissue(laptop.refresh, laptop.bearer), 401, 'J0004');
    await rotate(mine);
    await rotate(stranger);
  });

  it('PUT /api/v1/users with new_password ends the other sessions; without it they live', async () => {
    const { body, mine, laptop, phone } = await threeSessions();
    await request(h.app)
      .put('/api/v1/users')
      .set('Authorization', mine.bearer)
      .set('Cookie', `RefreshToken=${mine.refresh}`)
      .send({ password: body.password, nick_name: `n${String(body.nick_name).slice(-8)}` })
      .expect(200);
    const stillLaptop = await rotate(laptop);
    await request(h.app)
      .put('/api/v1/users')
      .set('Authorization', mine.bearer)
      .set('Cookie', `RefreshToken=${mine.refresh}`)
      .send({ password: body.password, new_password: NEW_PASSWORD })
      .expect(200);
    expectError(await reissue(stillLaptop.refresh, stillLaptop.bearer), 401, 'J0004');
    expectError(await reissue(phone.refresh, phone.bearer), 401, 'J0004');
    await rotate(mine);
  });

  it('a refused change (U0006, same password) ends nothing', async () => {
    const { body, mine, phone } = await threeSessions();
    expectError(await request(h.app).put('/api/v1/users/update/password').set('Authorization', mine.bearer).send({ password: body.password }), 400, 'U0006');
    await rotate(phone);
  });

  it('a reissue racing the change cannot keep a session alive', async () => {
    for (let round = 0; round < 5; round++) {
      const body = await signUp(h.app);
      const mine = await signedIn(h.app, body);
      const other = await signedIn(h.app, body);
      const [, raced] = await Promise.all([
        request(h.app)
          .put('/api/v1/users/update/password')
          .set('Authorization', mine.bearer)
          .set('Cookie', `RefreshToken=${mine.refresh}`)
          .send({ password: NEW_PASSWORD })
          .expect(200),
        reissue(other.refresh, other.bearer),
      ]);
      const next = raced.status === 200 ? { bearer: raced.body.data.access_token, refresh: refreshCookieValue(raced.headers['set-cookie']) } : other;
      expectError(await reissue(next.refresh, next.bearer), 401, 'J0004');
    }
  });
});

describe('an ending of sessions is recorded before its refresh tokens are revoked', () => {
  const sidOf = (bearer: string) => verifyAccessJwt(bearer.slice(BEARER_PREFIX.length), testEnv().publicKey).sessionId!;

  it('logout stores one session_revocations document carrying its sessions.revoked for the outbox relay', async () => {
    const session = await signedIn(h.app);
    const sid = sidOf(session.bearer);
    await request(h.app).post('/api/v1/users/logout').set('Authorization', session.bearer).expect(200);
    const records = await h.models.sessionRevocations.find({ sessionIds: sid }).lean().exec();
    expect(records).toHaveLength(1);
    expect(records[0].pendingEvents).toEqual([
      expect.objectContaining({ subject: sessionsRevoked.subject, data: expect.objectContaining({ v: 1, userId: records[0].userId, sessionIds: [sid] }) }),
    ]);
    expect(records[0].pendingEvents[0].id).toBe((records[0].pendingEvents[0].data as { eventId: string }).eventId);
  });

  it('a crash between the record and the refresh tokens: reissue refuses the session and finishes its revocation', async () => {
    const first = await signedIn(h.app);
    const current = await rotate(first);
    const sid = sidOf(current.bearer);
    const [token] = await h.models.refreshTokens.find({ familyId: sid }).lean().exec();
    // What the interrupted request left: the record, and every refresh token of the session still live.
    await h.models.sessionRevocations.create({ userId: token.userId, sessionIds: [sid], createdAt: new Date(), pendingEvents: [] });
    expectError(await reissue(current.refresh, current.bearer), 401, 'J0004');
    const family = await h.models.refreshTokens.find({ familyId: sid }).lean().exec();
    expect(family.length).toBe(2);
    for (const row of family) expect(row.revokedAt).toBeInstanceOf(Date);
  });
});
