import { accountsStream, userProjection, type AuthClaims, type EventBus } from '@binzip/shared';
import { bearer, eventually, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService } from './helpers';

/** The author projection wired the way main.ts wires it, fed through the real NATS server. */
let h: HousesHarness;
let bus: EventBus;
let consumer: { stop(): Promise<void> };

beforeAll(async () => {
  h = await startServiceHarness('housesproj', housesService);
  bus = await h.bus();
  await bus.ensureStream(accountsStream);
  consumer = await bus.consume(userProjection({ bus, connection: h.connection, service: 'houses' }));
});
afterAll(async () => {
  await consumer.stop();
  await h.close();
});

test('accounts.user snapshots give nicknames and types; a nickname change is searchable', async () => {
  const id = 555_001;
  // Not in the projection yet: the snapshots below introduce the author.
  const claims: AuthClaims = { userId: id, userName: `user${id}`, authority: 'USER', userType: 'AGENT' };
  const author: TestPerson = { id, nickName: '', claims, token: bearer(claims) };
  const houseId = await createListing(h, author, { title: '프로젝션 집' });

  await publishUserSnapshot(bus, userSnapshot(id, '첫닉네임', { version: 1, userType: 'AGENT' }));
  await eventually(async () => (await api(h).detail(houseId)).body.data.nickName === '첫닉네임', 10_000);
  expect((await api(h).detail(houseId)).body.data.userType).toBe('AGENT');

  await publishUserSnapshot(bus, userSnapshot(id, '바뀐닉네임', { version: 2, userType: 'AGENT' }));
  await eventually(async () => (await api(h).list('search=바뀐닉네임')).body.data.totalElements === 1, 10_000);
  expect((await api(h).list('search=첫닉네임')).body.data.totalElements).toBe(0);
});
