import { REVOCATION_FEED_PATH, revocationFeedSchema, verifyAccessJwt } from '@binzip/shared';
import express from 'express';
import request from 'supertest';
import { testEnv } from '../../../test/support';
import { revocationFeedEndpoint } from '../src/domain/revocation-feed';
import { signedIn, signedInAdmin, startAccountsHarness, type AccountsHarness } from './helpers';

/** accounts' side of the second path of revocations (issue 34): what the other services read when NATS is away. */
const TOKEN = 'feed-token-0123456789abcdef';

let h: AccountsHarness;
let feed: express.Express;
beforeAll(async () => {
  h = await startAccountsHarness('acctfeed');
  feed = express().use(revocationFeedEndpoint(h.ctx, TOKEN));
});
afterAll(async () => h.close());

const read = (since: Date, token: string | null = TOKEN) => {
  const call = request(feed).get(REVOCATION_FEED_PATH).query({ since: since.toISOString() });
  return token === null ? call : call.set('Authorization', `Bearer ${token}`);
};

it('answers only the bearer of REVOCATION_FEED_TOKEN (403 C0003), and nobody without one configured', async () => {
  for (const res of [await read(new Date(), null), await read(new Date(), 'another-token-0123456789')]) {
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'C0003' });
  }
  const closed = await request(express().use(revocationFeedEndpoint(h.ctx, undefined)))
    .get(REVOCATION_FEED_PATH)
    .set('Authorization', 'Bearer undefined')
    .query({ since: new Date().toISOString() });
  expect({ status: closed.status, code: closed.body.code }).toEqual({ status: 403, code: 'C0003' });
  const bad = await request(feed).get(REVOCATION_FEED_PATH).set('Authorization', `Bearer ${TOKEN}`).query({ since: 'yesterday' });
  expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'C0002' });
});

it('carries a logout, a password change and a suspension made after `since`, and where the next read starts', async () => {
  const since = new Date(h.ctx.now().getTime() - 1_000);
  const leaving = await signedIn(h.app);
  const leavingSid = verifyAccessJwt(leaving.bearer.slice(7), testEnv().publicKey).sessionId;
  await request(h.app).post('/api/v1/users/logout').set('Authorization', leaving.bearer).expect(200);
  const changing = await signedIn(h.app);
  const other = await request(h.app).post('/api/v1/users/sign-in').send({ userName: changing.body.userName, password: changing.body.password });
  const otherSid = verifyAccessJwt((other.body.data.access_token as string).slice(7), testEnv().publicKey).sessionId;
  await request(h.app).put('/api/v1/users/update/password').set('Authorization', changing.bearer).send({ password: 'N3wPassw0rd!' }).expect(200);
  const suspending = await signedIn(h.app);
  const suspendedId = verifyAccessJwt(suspending.bearer.slice(7), testEnv().publicKey).userId;
  const admin = await signedInAdmin(h);
  await request(h.app).put(`/api/v1/admin/users/${suspendedId}/suspension`).set('Authorization', admin.bearer).send({ reason: '도배' }).expect(200);

  const res = await read(since);
  expect(res.status).toBe(200);
  const answer = revocationFeedSchema.parse(res.body.data);
  const ended = answer.sessions.flatMap((s) => s.sessionIds);
  expect(ended).toEqual(expect.arrayContaining([leavingSid, otherSid]));
  expect(answer.users).toContainEqual(expect.objectContaining({ id: suspendedId, status: 'SUSPENDED' }));
  // The next read starts before now (an overlap), never before `since`.
  expect(Date.parse(answer.next)).toBeLessThan(h.ctx.now().getTime());
  expect(Date.parse(answer.next)).toBeGreaterThanOrEqual(since.getTime());

  const later = revocationFeedSchema.parse((await read(new Date(h.ctx.now().getTime() + 60_000))).body.data);
  expect({ sessions: later.sessions, users: later.users }).toEqual({ sessions: [], users: [] });
});
