import { EventBus, createLogger, userSubject } from '@binzip/shared';
import { eventually, isolatedNames, testEnv } from '../../../test/support';
import { startAuthorProjection } from '../src/events/user-projection';
import { api, createListing, startHarness, type Harness, type Person } from './harness';
import { bearer } from '../../../test/support';

/** The author projection wired the way main.ts wires it, fed through the real NATS server. */
let h: Harness;
let bus: EventBus;
let consumer: { stop(): Promise<void> };

beforeAll(async () => {
  h = await startHarness('housesproj');
  const { natsPrefix } = isolatedNames('housesproj');
  bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: natsPrefix, name: 'houses-test', logger: createLogger('test', 'silent') });
  await bus.ensureStream('ACCOUNTS');
  consumer = await startAuthorProjection(bus, h.connection, createLogger('test', 'silent'));
});
afterAll(async () => {
  await consumer.stop();
  await bus.deleteStreams();
  await bus.close();
  await h.close();
});

const snapshot = (id: number, nick: string, version: number, userType: 'NONE' | 'AGENT' = 'AGENT') => ({
  v: 1,
  eventId: `snap-${id}-${version}`,
  id,
  userName: `user${id}`,
  nick_name: nick,
  userType,
  authority: 'USER',
  status: 'ACTIVE',
  version,
  occurredAt: new Date().toISOString(),
});

test('accounts.user snapshots give nicknames and types; a nickname change is searchable', async () => {
  const id = 555_001;
  const author: Person = { id, nickName: '', userType: 'AGENT', token: bearer({ userId: id, userType: 'AGENT' }) };
  const houseId = await createListing(h, author, { title: '프로젝션 집' });

  await bus.publish(userSubject(id), snapshot(id, '첫닉네임', 1), `snap-${id}-1`);
  await eventually(async () => (await api(h).detail(houseId)).body.data.nickName === '첫닉네임', 10_000);
  expect((await api(h).detail(houseId)).body.data.userType).toBe('AGENT');

  await bus.publish(userSubject(id), snapshot(id, '바뀐닉네임', 2), `snap-${id}-2`);
  await eventually(async () => (await api(h).list('search=바뀐닉네임')).body.data.totalElements === 1, 10_000);
  expect((await api(h).list('search=첫닉네임')).body.data.totalElements).toBe(0);
});
