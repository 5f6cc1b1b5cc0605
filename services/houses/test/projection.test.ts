import { EventBus, createLogger, startUserProjection } from '@binzip/shared';
import { bearer, eventually, isolatedNames, publishUserSnapshot, testEnv, userSnapshot } from '../../../test/support';
import { api, createListing, startHarness, type Harness, type Person } from './harness';

/** The author projection wired the way main.ts wires it, fed through the real NATS server. */
let h: Harness;
let bus: EventBus;
let consumer: { stop(): Promise<void> };

beforeAll(async () => {
  h = await startHarness('housesproj');
  const { natsPrefix } = isolatedNames('housesproj');
  bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: natsPrefix, name: 'houses-test', logger: createLogger('test', 'silent') });
  await bus.ensureStream('ACCOUNTS');
  consumer = await startUserProjection({ bus, connection: h.connection, service: 'houses', logger: createLogger('test', 'silent') });
});
afterAll(async () => {
  await consumer.stop();
  await bus.deleteStreams();
  await bus.close();
  await h.close();
});

test('accounts.user snapshots give nicknames and types; a nickname change is searchable', async () => {
  const id = 555_001;
  const author: Person = { id, nickName: '', userType: 'AGENT', token: bearer({ userId: id, userType: 'AGENT' }) };
  const houseId = await createListing(h, author, { title: '프로젝션 집' });

  await publishUserSnapshot(bus, userSnapshot(id, '첫닉네임', { version: 1, userType: 'AGENT' }));
  await eventually(async () => (await api(h).detail(houseId)).body.data.nickName === '첫닉네임', 10_000);
  expect((await api(h).detail(houseId)).body.data.userType).toBe('AGENT');

  await publishUserSnapshot(bus, userSnapshot(id, '바뀐닉네임', { version: 2, userType: 'AGENT' }));
  await eventually(async () => (await api(h).list('search=바뀐닉네임')).body.data.totalElements === 1, 10_000);
  expect((await api(h).list('search=첫닉네임')).body.data.totalElements).toBe(0);
});
