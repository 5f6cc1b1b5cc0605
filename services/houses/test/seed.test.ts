import { SEED_AUTHOR_BASE_ID, seedHouses } from '../../../scripts/seed-houses';
import { addMember, startServiceHarness } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService } from './helpers';

let h: HousesHarness;
beforeAll(async () => {
  h = await startServiceHarness('housesseed', housesService);
});
afterAll(() => h.close());

test('the seed inserts public listings with real ids, projected authors, and advances the counter once', async () => {
  const author = await addMember(h.connection, '먼저쓴이', { userType: 'AGENT' });
  const before = await createListing(h, author);
  const result = await seedHouses(h.connection, { count: 120, authors: 7, batchSize: 50, seed: 7 });
  expect(result).toEqual({ inserted: 120, firstId: before + 1, lastId: before + 120 });
  const after = await createListing(h, author);
  expect(after).toBe(before + 121);

  const list = await api(h).list('size=50');
  expect(list.body.data.totalElements).toBe(122);
  const seeded = list.body.data.content.filter((i: { houseId: number }) => i.houseId !== before && i.houseId !== after);
  for (const item of seeded) {
    expect(item.city).toMatch(
      /^(서울특별시|부산광역시|대구광역시|인천광역시|광주광역시|대전광역시|울산광역시|세종특별자치시|경기도|강원특별자치도|충청북도|충청남도|전북특별자치도|전라남도|경상북도|경상남도|제주특별자치도) /,
    );
    expect(item.nickName).toMatch(/부동산\d$/);
  }
  expect(await h.models.users.countDocuments({ _id: { $gte: SEED_AUTHOR_BASE_ID } })).toBe(7);
  // Every seeded listing passes the same rules a saved one does: read one in full.
  const detail = await api(h).detail(result.firstId);
  expect(detail.status).toBe(200);
  expect(detail.body.data.contact).toMatch(/^\d{11}$/);
  expect(detail.body.data.createdDate).toMatch(/^\d{4}$/);
});
