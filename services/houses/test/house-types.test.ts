/**
 * The original site's "농가거래" change (issue 33): `houseType` (LAND 토지, HOUSE 주택, FARM_HOUSE 농가) and
 * an agent's `agentDetail` on listings, the list's type filter, `detail`/`purpose`/`createdDate` optional on
 * save and the contact as people type it. Listings and clients without the new fields keep working as before.
 */
import { expectError } from '../../../test/support';
import { addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { fieldLabels, MAX_AGENT_DETAIL } from '../src/routes/schemas';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let agentUser: TestPerson;
let member: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('househousetypes', housesService);
  agentUser = await addMember(h.connection, '농가중개사', { userType: 'AGENT' });
  member = await addMember(h.connection, '농가손님');
});
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const ids = (page: Loose): number[] => page.content.map((item: Loose) => item.houseId);

/** A saved listing the way the newest web client's form leaves it when only the required inputs are filled. */
const farmForm = (overrides: Record<string, unknown> = {}) =>
  validListing({
    houseType: 'FARM_HOUSE',
    detail: '',
    purpose: '',
    createdDate: '',
    floorNum: 0,
    contact: '010-2345-6789',
    agentName: '김중개',
    agentDetail: 'https://blog.example.com/office',
    ...overrides,
  });

test('a listing with a type and an agent description: stored and answered in detail, list and own list; optional fields blank', async () => {
  const houseId = await createListing(h, agentUser, farmForm());
  const stored = await h.models.houses.findById(houseId).lean().exec();
  expect(stored).toMatchObject({
    houseType: 'FARM_HOUSE',
    agentDetail: 'https://blog.example.com/office',
    contact: '01023456789',
    detail: '',
    purpose: '',
    createdDate: '',
  });
  const detail = (await api(h).detail(houseId)).body.data;
  expect(detail).toMatchObject({
    houseId,
    houseType: 'FARM_HOUSE',
    agentDetail: 'https://blog.example.com/office',
    contact: '01023456789',
    purpose: '',
    createdDate: '',
    detail: '',
  });
  const item = (await api(h).list()).body.data.content.find((i: Loose) => i.houseId === houseId);
  expect(item).toMatchObject({ houseId, houseType: 'FARM_HOUSE' });
  expect(item).not.toHaveProperty('agentDetail');
  const own = (await api(h).own(agentUser)).body.data.content.find((i: Loose) => i.houseId === houseId);
  expect(own).toMatchObject({ houseId, houseType: 'FARM_HOUSE', dealState: 'ONGOING' });
});

test('a listing without the new fields (a client from before them) answers exactly as before: no houseType, no agentDetail', async () => {
  const houseId = await createListing(h, agentUser);
  const detail = (await api(h).detail(houseId)).body.data;
  expect(detail).not.toHaveProperty('houseType');
  expect(detail).not.toHaveProperty('agentDetail');
  const stored = await h.models.houses.findById(houseId).lean().exec();
  expect(stored).not.toHaveProperty('houseType');
  const item = (await api(h).list()).body.data.content.find((i: Loose) => i.houseId === houseId);
  expect(item).not.toHaveProperty('houseType');
});

test('the list filter: houseType=LAND, several comma-separated or repeated; blank or null is no filter; other values are C0002', async () => {
  const land = await createListing(h, agentUser, farmForm({ houseType: 'LAND', title: '주말농장 토지' }));
  const house = await createListing(h, agentUser, farmForm({ houseType: 'HOUSE', title: '시골집' }));
  const farm = await createListing(h, agentUser, farmForm({ houseType: 'FARM_HOUSE', title: '농가' }));
  const none = await createListing(h, agentUser, validListing({ title: '유형 없음' }));
  const listed = async (query: string) => ids((await api(h).list(`${query}&size=50`).expect(200)).body.data);
  expect(await listed('houseType=LAND')).toContain(land);
  expect(await listed('houseType=LAND')).not.toContain(house);
  expect(await listed('houseType=LAND')).not.toContain(none);
  const two = await listed('houseType=LAND,HOUSE');
  expect([two.includes(land), two.includes(house), two.includes(farm), two.includes(none)]).toEqual([true, true, false, false]);
  const repeated = await listed('houseType=HOUSE&houseType=FARM_HOUSE');
  expect([repeated.includes(land), repeated.includes(house), repeated.includes(farm)]).toEqual([false, true, true]);
  for (const absent of ['houseType=', 'houseType=null']) {
    const all = await listed(absent);
    expect([land, house, farm, none].every((id) => all.includes(id))).toBe(true);
  }
  // Combined with the other filters.
  expect(await listed(`houseType=HOUSE&search=${encodeURIComponent('시골')}`)).toEqual([house]);
  for (const bad of ['houseType=VILLA', 'houseType=LAND,APARTMENT', 'houseType=land']) {
    expectError(await api(h).list(bad), 400, 'C0002', `${fieldLabels.houseType} 값이 올바르지 않습니다.`);
  }
});

test('an edit that does not send houseType or agentDetail keeps them; "" or null clears them', async () => {
  const houseId = await createListing(h, agentUser, farmForm());
  const { houseType: _t, agentDetail: _d, ...withoutNewFields } = farmForm({ title: '예전 화면에서 고침' });
  await api(h).update(agentUser, houseId, withoutNewFields).expect(200);
  expect((await api(h).detail(houseId)).body.data).toMatchObject({
    title: '예전 화면에서 고침',
    houseType: 'FARM_HOUSE',
    agentDetail: 'https://blog.example.com/office',
  });
  await api(h)
    .update(agentUser, houseId, farmForm({ houseType: '', agentDetail: null }))
    .expect(200);
  const cleared = (await api(h).detail(houseId)).body.data;
  expect(cleared).not.toHaveProperty('houseType');
  expect(cleared).not.toHaveProperty('agentDetail');
  await api(h)
    .update(agentUser, houseId, farmForm({ houseType: 'LAND', agentDetail: '   ' }))
    .expect(200);
  const again = (await api(h).detail(houseId)).body.data;
  expect(again.houseType).toBe('LAND');
  expect(again).not.toHaveProperty('agentDetail');
});

test('a draft takes the new fields and a typed contact, stored digits-only; a member without agentDetail saves too', async () => {
  const draft = await api(h)
    .create(member, { ...farmForm({ agentName: '', agentDetail: '', contact: '010 3456 7890' }), tmpYn: true })
    .expect(200);
  const stored = await h.models.houses.findById(draft.body.data).lean().exec();
  expect(stored).toMatchObject({ tmpYn: true, houseType: 'FARM_HOUSE', agentDetail: null, contact: '01034567890' });
  await api(h)
    .update(member, draft.body.data as number, farmForm({ agentName: '', agentDetail: '' }))
    .expect(200);
  expect((await api(h).detail(draft.body.data as number, member)).body.data).toMatchObject({ tmpYn: false, houseType: 'FARM_HOUSE', contact: '01023456789' });
});

test('a draft saved before a main photo is chosen (imageUrls [""], as 5ed793e sends it) is stored without blanks; a save with a blank is still C0002', async () => {
  const draft = await api(h)
    .create(member, { ...farmForm({ imageUrls: [''] }), tmpYn: true })
    .expect(200);
  expect((await h.models.houses.findById(draft.body.data).lean().exec())?.imageUrls).toEqual([]);
  await api(h)
    .update(member, draft.body.data as number, { ...farmForm({ imageUrls: ['', '  ', 'https://img.example.com/a.jpg'] }), tmpYn: true })
    .expect(200);
  expect((await h.models.houses.findById(draft.body.data).lean().exec())?.imageUrls).toEqual(['https://img.example.com/a.jpg']);
  const before = await h.models.houses.countDocuments().exec();
  expectError(await api(h).create(member, farmForm({ imageUrls: [''] })), 400, 'C0002', '이미지 주소 값이 올바르지 않습니다.');
  expectError(
    await api(h).update(member, draft.body.data as number, farmForm({ imageUrls: ['https://img.example.com/a.jpg', ' '] })),
    400,
    'C0002',
    '이미지 주소 값이 올바르지 않습니다.',
  );
  expectError(
    await api(h).create(member, { ...farmForm({ imageUrls: ['javascript:alert(1)'] }), tmpYn: true }),
    400,
    'C0002',
    '이미지 주소 값이 올바르지 않습니다.',
  );
  expect(await h.models.houses.countDocuments().exec()).toBe(before);
});

test.each<[string, Record<string, unknown>, string]>([
  ['houseType', { houseType: 'VILLA' }, '매물 유형 값이 올바르지 않습니다.'],
  ['houseType', { houseType: 1 }, '매물 유형 값이 올바르지 않습니다.'],
  ['agentDetail', { agentDetail: 'x'.repeat(MAX_AGENT_DETAIL + 1) }, '중개사 상세 설명 값이 올바르지 않습니다.'],
  ['agentDetail', { agentDetail: '줄\u0000바꿈' }, '중개사 상세 설명 값이 올바르지 않습니다.'],
  ['contact', { contact: '010-abcd-5678' }, '연락처 값이 올바르지 않습니다.'],
  ['contact', { contact: '010-12' }, '연락처 값이 올바르지 않습니다.'],
  ['createdDate', { createdDate: '75년' }, '준공 연도 값이 올바르지 않습니다.'],
])('bad %s (%#): C0002 naming it in Korean, saved or drafted, and nothing is stored', async (_field, overrides, message) => {
  const before = await h.models.houses.countDocuments().exec();
  expectError(await api(h).create(agentUser, farmForm(overrides)), 400, 'C0002', message);
  if (_field !== 'contact' && _field !== 'createdDate') {
    expectError(await api(h).create(agentUser, { ...farmForm(overrides), tmpYn: true }), 400, 'C0002', message);
  }
  expect(await h.models.houses.countDocuments().exec()).toBe(before);
});

test('agentDetail is plain text: stored and answered as sent (markup is not read), exactly at its limit', async () => {
  const text = '<b>담양</b> & 곡성 전문'.padEnd(MAX_AGENT_DETAIL, '.');
  const houseId = await createListing(h, agentUser, farmForm({ agentDetail: text }));
  expect((await api(h).detail(houseId)).body.data.agentDetail).toBe(text);
});
