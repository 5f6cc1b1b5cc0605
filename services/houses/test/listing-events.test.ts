import { type OutboxEvent } from '@binzip/shared';
import { houseListingChanged, houseListingDecided, houseListingPublished } from '@binzip/events';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, housesService, validListing, type HousesHarness } from './helpers';

let h: HousesHarness;
let agent: TestPerson;
let member: TestPerson;
let fan: TestPerson;
let admin: TestPerson;

// The listing's own events; the administrators' audit entries share its outbox (issue 40, moderation.test.ts).
const pending = async (houseId: number): Promise<OutboxEvent[]> =>
  ((await h.models.houses.findById(houseId).lean().exec())?.pendingEvents ?? []).filter((e) => e.subject.startsWith('houses.listing.'));
const subjects = async (houseId: number) => (await pending(houseId)).map((e) => e.subject);
/** The relay's part: what was pending is published and removed. */
const relayed = (houseId: number) => h.models.houses.updateOne({ _id: houseId }, { $set: { pendingEvents: [] } }).exec();

beforeAll(async () => {
  h = await startServiceHarness('houseevents', housesService);
  agent = await addMember(h.connection, '중개사', { id: 11, userType: 'AGENT' });
  member = await addMember(h.connection, '주민', { id: 12 });
  fan = await addMember(h.connection, '팬', { id: 13 });
  admin = await addAdmin(h.connection, '관리자', { id: 14 });
});

afterAll(() => h.close());

it("an agent's save publishes the listing once, in the same write, with what alerts match on", async () => {
  const kicks = h.outboxKicks.count;
  const houseId = await createListing(h, agent, {
    title: '강릉 바닷가 집',
    city: '강원도 강릉시 주문진읍',
    houseType: 'HOUSE',
    latitude: 37.89,
    longitude: 128.83,
  });
  const [event] = await pending(houseId);
  expect(await subjects(houseId)).toEqual(['houses.listing.published']);
  expect(houseListingPublished.schema.parse(event.data)).toMatchObject({
    houseId,
    authorId: agent.id,
    title: '강릉 바닷가 집',
    rentalType: 'SALE',
    dealState: 'ONGOING',
    houseType: 'HOUSE',
    price: 12000,
    province: '강원특별자치도',
    county: '강릉시',
    latitude: 37.89,
    longitude: 128.83,
  });
  expect(h.outboxKicks.count).toBeGreaterThan(kicks);

  // An edit of a listing that stays public publishes nothing (no scrapper: no change notice either).
  await relayed(houseId);
  await api(h)
    .update(agent, houseId, validListing({ title: '강릉 바닷가 집 (수정)', price: 9000 }))
    .expect(200);
  expect(await subjects(houseId)).toEqual([]);
});

it("a member's listing is published by its approval, with the author's decision; a rejection only tells the author", async () => {
  const approved = await createListing(h, member, { title: '승인될 집' });
  const rejected = await createListing(h, member, { title: '거절될 집' });
  expect(await subjects(approved)).toEqual([]);

  await api(h).decide(admin, approved, { approve: true }).expect(200);
  const events = await pending(approved);
  expect(events.map((e) => e.subject).sort()).toEqual(['houses.listing.decided', 'houses.listing.published']);
  const decided = houseListingDecided.schema.parse(events.find((e) => e.subject === 'houses.listing.decided')?.data);
  expect(decided).toMatchObject({ houseId: approved, authorId: member.id, approved: true, reason: null, title: '승인될 집' });

  await api(h).decide(admin, rejected, { approve: false, reason: '사진이 없습니다' }).expect(200);
  expect(await subjects(rejected)).toEqual(['houses.listing.decided']);
  expect(houseListingDecided.schema.parse((await pending(rejected))[0].data)).toMatchObject({ approved: false, reason: '사진이 없습니다' });
});

it('a draft publishes nothing until it is saved', async () => {
  const draft = await createListing(h, agent, { tmpYn: true });
  expect(await subjects(draft)).toEqual([]);
  await api(h).update(agent, draft, validListing()).expect(200);
  expect(await subjects(draft)).toEqual(['houses.listing.published']);
});

it("a price or deal state change tells the listing's scrappers, not its author", async () => {
  const houseId = await createListing(h, agent);
  await relayed(houseId);
  await api(h).scrap(fan, houseId).expect(200);
  await api(h)
    .update(agent, houseId, validListing({ price: 8000 }))
    .expect(200);
  const [changed] = await pending(houseId);
  expect(houseListingChanged.schema.parse(changed.data)).toMatchObject({
    houseId,
    price: 8000,
    previousPrice: 12000,
    dealState: 'ONGOING',
    scrapperIds: [fan.id],
  });

  await relayed(houseId);
  await api(h).complete(agent, houseId).expect(200);
  expect(houseListingChanged.schema.parse((await pending(houseId))[0].data)).toMatchObject({ dealState: 'COMPLETED', previousDealState: 'ONGOING' });

  // A title-only edit changes neither.
  await relayed(houseId);
  await api(h)
    .update(agent, houseId, validListing({ price: 8000, title: '새 제목' }))
    .expect(200);
  expect(await subjects(houseId)).toEqual([]);
});
