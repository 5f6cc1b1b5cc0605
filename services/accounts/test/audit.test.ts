import {
  adminActionRecorded,
  createLogger,
  startConsumers,
  startOutboxRelay,
  type EventBus,
  type OutboxEvent,
  type OutboxRelay,
  type RunningConsumer,
  accountsStream,
  auditStream,
} from '@binzip/shared';
import request from 'supertest';
import { eventually, expectError } from '../../../test/support';
import { accountsConsumers, accountsOutbox } from '../src/events';
import { signedIn, signedInAdmin, signUp, startAccountsHarness, type AccountsHarness } from './helpers';

/**
 * Issue 40 in accounts: its own actions carry their audit entry in the user's write; it gathers every service's
 * entries once each (the consumer) and serves GET /api/v1/admin/audit.
 */

jest.setTimeout(60_000);
const logger = createLogger('test', 'silent');

let h: AccountsHarness;
let bus: EventBus;
let relay: OutboxRelay;
let consumers: RunningConsumer;
let admin: { id: number; bearer: string; userName: string };
let otherAdmin: { id: number; bearer: string; userName: string };

beforeAll(async () => {
  // The relay's kick replaces the harness's counter, so an action reaches the audit list as in production.
  let kick = () => {};
  h = await startAccountsHarness('acctaudit', { eventsPending: () => kick() });
  bus = await h.bus();
  // runService ensures every stream at start; here the relay also publishes the user snapshots.
  await bus.ensureStream(accountsStream);
  await bus.ensureStream(auditStream);
  relay = startOutboxRelay(bus, accountsOutbox(h.models), { logger, intervalMs: 200 });
  kick = () => void relay.kick();
  consumers = await startConsumers(bus, accountsConsumers(h.ctx));
  const a = await signedInAdmin(h, { userName: 'audit_admin' });
  admin = { id: a.id, bearer: a.bearer, userName: 'audit_admin' };
  const b = await signedInAdmin(h, { userName: 'audit_other' });
  otherAdmin = { id: b.id, bearer: b.bearer, userName: 'audit_other' };
});
afterAll(async () => {
  await relay?.stop();
  await consumers?.stop();
  await h.close();
});

const audit = (query = '', who = admin.bearer) =>
  request(h.app)
    .get(`/api/v1/admin/audit${query ? `?${query}` : ''}`)
    .set('Authorization', who);
const asAdmin = (method: 'put' | 'delete', path: string, who = admin.bearer) => request(h.app)[method](path).set('Authorization', who);
const idOf = async (userName: unknown): Promise<number> => (await h.ctx.models.users.findOne({ userName }).lean().exec())!._id;
const pendingAuditOf = async (userId: number) =>
  ((await h.ctx.models.users.findById(userId, { pendingEvents: 1 }).lean().exec())?.pendingEvents ?? []).filter(
    (e: OutboxEvent) => e.subject === 'audit.accounts',
  );

/** The entries about one member, newest first, once the relay and the consumer have carried them. */
async function entriesAbout(memberId: number, count: number) {
  let items: Array<Record<string, unknown>> = [];
  await eventually(async () => {
    items = (await audit(`memberId=${memberId}&size=100`).expect(200)).body.data.content;
    expect(items).toHaveLength(count);
    return true;
  }, 10_000);
  return items;
}

describe('accounts actions are audited through the outbox', () => {
  it('suspend, suspend again with a new reason, lift: one entry each, newest first, with actor, reason, request id', async () => {
    const member = await signUp(h.app);
    const id = await idOf(member.userName);
    await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).set('x-request-id', 'req-suspend-1').send({ reason: '광고 도배' }).expect(200);
    h.clock.advance(1_000);
    // The same reason again changes nothing: no action, no entry.
    await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send({ reason: '광고 도배' }).expect(200);
    await asAdmin('put', `/api/v1/admin/users/${id}/suspension`, otherAdmin.bearer).send({ reason: '욕설' }).expect(200);
    h.clock.advance(1_000);
    await asAdmin('delete', `/api/v1/admin/users/${id}/suspension`).expect(200);
    // Lifting a member who is not suspended is no action either.
    await asAdmin('delete', `/api/v1/admin/users/${id}/suspension`).expect(200);
    const items = await entriesAbout(id, 3);
    expect(items.map((i) => [i.action, (i.actor as { userName: string }).userName, i.reason])).toEqual([
      ['LIFT_SUSPENSION', 'audit_admin', null],
      ['SUSPEND', 'audit_other', '욕설'],
      ['SUSPEND', 'audit_admin', '광고 도배'],
    ]);
    expect(items[2]).toEqual({
      id: expect.any(String),
      actor: { id: admin.id, userName: 'audit_admin' },
      action: 'SUSPEND',
      targetType: 'USER',
      targetId: id,
      reason: '광고 도배',
      at: expect.stringMatching(/\+09:00$/),
      requestId: 'req-suspend-1',
      service: 'accounts',
      memberId: id,
    });
  });

  it('suspending an administrator is refused (C0003) and leaves no entry', async () => {
    expectError(await asAdmin('put', `/api/v1/admin/users/${otherAdmin.id}/suspension`).send({ reason: '시험' }), 403, 'C0003');
    expect(await pendingAuditOf(otherAdmin.id)).toEqual([]);
    expect((await audit(`targetType=USER&targetId=${otherAdmin.id}`).expect(200)).body.data.totalElements).toBe(0);
  });

  it('completing a withdrawal is audited beside the erasing snapshot', async () => {
    const leaving = await signedIn(h.app);
    const id = await idOf(leaving.body.userName);
    await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', leaving.bearer)
      .send({ reason: ['기타'], content: '안녕' })
      .expect(200);
    await asAdmin('put', `/api/v1/admin/withdrawals/${id}`).expect(200);
    const [entry] = await entriesAbout(id, 1);
    expect(entry).toMatchObject({ action: 'COMPLETE_WITHDRAWAL', targetType: 'USER', targetId: id, actor: { id: admin.id } });
  });
});

describe('gathering every service entry once', () => {
  const fields = (overrides: Partial<Parameters<typeof adminActionRecorded.build>[0]> = {}) => ({
    service: 'houses' as const,
    actorId: 777,
    actorUserName: 'houses_admin',
    action: 'APPROVE',
    targetType: 'HOUSE' as const,
    targetId: 4242,
    memberId: 888_001,
    reason: null,
    requestId: 'req-h-1',
    occurredAt: '2026-03-01T03:00:00.000Z',
    ...overrides,
  });

  it('a re-published event (same event id, new message id) is stored once', async () => {
    const event = adminActionRecorded.build(fields());
    await bus.publish(adminActionRecorded.subjectOf(event), event, `${event.eventId}-a`);
    await bus.publish(adminActionRecorded.subjectOf(event), event, `${event.eventId}-b`);
    const marker = adminActionRecorded.build(fields({ targetId: 4243 }));
    await bus.publish(adminActionRecorded.subjectOf(marker), marker, marker.eventId);
    await eventually(async () => {
      expect((await audit('targetId=4243').expect(200)).body.data.totalElements).toBe(1);
      return true;
    }, 10_000);
    const res = await audit('targetType=HOUSE&targetId=4242').expect(200);
    expect(res.body.data.content).toEqual([
      expect.objectContaining({ id: event.eventId, service: 'houses', actor: { id: 777, userName: 'houses_admin' }, action: 'APPROVE' }),
    ]);
    expect(await h.models.auditEntries.countDocuments({ _id: event.eventId })).toBe(1);
  });

  it('filters by actor (id or userName), action, target, member and dates; pages; newest first', async () => {
    const published = [
      fields({
        actorId: 901,
        actorUserName: 'filter_a',
        action: 'REJECT',
        targetId: 5001,
        memberId: 888_002,
        reason: '사진 없음',
        occurredAt: '2026-04-01T01:00:00.000Z',
      }),
      fields({
        service: 'community',
        actorId: 902,
        actorUserName: 'filter_b',
        action: 'DELETE',
        targetType: 'BOARD',
        targetId: 5001,
        memberId: 888_002,
        occurredAt: '2026-04-02T01:00:00.000Z',
      }),
      fields({ actorId: 901, actorUserName: 'filter_a', action: 'APPROVE', targetId: 5002, memberId: 888_003, occurredAt: '2026-04-03T01:00:00.000Z' }),
    ].map((f) => adminActionRecorded.build(f));
    for (const event of published) await bus.publish(adminActionRecorded.subjectOf(event), event, event.eventId);
    await eventually(async () => {
      expect((await audit('actor=filter_a').expect(200)).body.data.totalElements).toBe(2);
      return true;
    }, 10_000);
    const ids = async (query: string) => ((await audit(query).expect(200)).body.data.content as Array<{ id: string }>).map((i) => i.id);
    const [rejected, deleted, approved] = published.map((e) => e.eventId);
    expect(await ids('actor=filter_a')).toEqual([approved, rejected]);
    expect(await ids('actor=901')).toEqual([approved, rejected]);
    expect(await ids('actor=filter_a&action=REJECT')).toEqual([rejected]);
    expect(await ids('targetId=5001')).toEqual([deleted, rejected]);
    expect(await ids('targetType=BOARD&targetId=5001')).toEqual([deleted]);
    expect(await ids('memberId=888002')).toEqual([deleted, rejected]);
    // Dates: a day is a whole day in Asia/Seoul; a date-time is exact.
    expect(await ids('actor=filter_a&from=2026-04-03')).toEqual([approved]);
    expect(await ids('memberId=888002&to=2026-04-01')).toEqual([rejected]);
    expect(await ids('memberId=888002&from=2026-04-02T00:00:00Z&to=2026-04-02T23:00:00Z')).toEqual([deleted]);
    const page = (await audit('targetId=5001&size=1&page=1').expect(200)).body.data;
    expect(page).toMatchObject({ totalElements: 2, totalPages: 2, size: 1, number: 1 });
    expect(page.content.map((i: { id: string }) => i.id)).toEqual([rejected]);
  });
});

describe('GET /api/v1/admin/audit: access and bad input', () => {
  it('administrators only', async () => {
    expectError(await request(h.app).get('/api/v1/admin/audit'), 401, 'J0000');
    const { bearer } = await signedIn(h.app);
    expectError(await audit('', bearer), 403, 'J0006');
  });

  it.each([
    'targetType=LISTING',
    'targetId=abc',
    'targetId=0',
    'memberId=-1',
    'action=approve',
    'from=yesterday',
    'from=2026-13-45',
    'to=2026-04-01T25:00:00Z',
    'from=2026-04-02&to=2026-04-01',
    'page=-1',
  ])('%s: 400 C0002 with a Korean message', async (query) => {
    const res = await audit(query);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toMatch(/[가-힣]/);
  });

  it('no operation edits or deletes an entry', async () => {
    const [entry] = await h.models.auditEntries.find().limit(1).lean().exec();
    expect(entry).toBeDefined();
    for (const method of ['put', 'patch', 'delete', 'post'] as const) {
      const res = await request(h.app)[method](`/api/v1/admin/audit/${entry._id}`).set('Authorization', admin.bearer).send({ reason: 'x' });
      expectError(res, 404, 'C0001');
      expectError(await request(h.app)[method]('/api/v1/admin/audit').set('Authorization', admin.bearer).send({}), 404, 'C0001');
    }
    expect(await h.models.auditEntries.findById(entry._id).lean().exec()).toEqual(entry);
  });
});
