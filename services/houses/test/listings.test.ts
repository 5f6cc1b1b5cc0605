import { expectError } from '../../../test/support';
import { fieldLabels } from '../src/routes/schemas';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let user: TestPerson;
let other: TestPerson;
let agentUser: TestPerson;
let admin: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('houseslist', housesService);
  user = await addMember(h.connection, '빈집러');
  other = await addMember(h.connection, '이웃');
  agentUser = await addMember(h.connection, '공인중개사김', { userType: 'AGENT' });
  admin = await addAdmin(h.connection, '관리자');
});
afterAll(() => h.close());

describe('create', () => {
  test('an agent saves: public at once, detail fields exactly as the spec', async () => {
    const res = await api(h).create(agentUser, validListing({ floorNum: null, agentName: '김중개' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: expect.any(Number) });
    const houseId = res.body.data as number;

    const detail = await api(h).detail(houseId);
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body.data).sort()).toEqual(
      [
        'houseId',
        'rentalType',
        'city',
        'detail',
        'zipCode',
        'size',
        'purpose',
        'floorNum',
        'contact',
        'createdDate',
        'price',
        'monthlyPrice',
        'agentName',
        'title',
        'code',
        'imageUrls',
        'tmpYn',
        'recommendedTag',
        'recommendedTagName',
        'nickName',
        'userType',
        'createdAt',
        'isCompleted',
        'isScraped',
        // Issue 39's additions: the point, null until the geocoder has found it.
        'latitude',
        'longitude',
      ].sort(),
    );
    expect(detail.body.data).toMatchObject({
      houseId,
      floorNum: 0,
      agentName: '김중개',
      nickName: '공인중개사김',
      userType: 'AGENT',
      isCompleted: false,
      isScraped: false,
      tmpYn: false,
      recommendedTag: ['WANT_TO_FARM', 'WANT_TO_LOOK_A_GOOD_VIEW'],
      recommendedTagName: ['농사 짓기를 원해요.', '경치가 좋은 집을 원해요.'],
    });
    expect(detail.body.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/);
    const list = await api(h).list();
    expect(list.body.data.content.map((i: { houseId: number }) => i.houseId)).toContain(houseId);
  });

  test('an administrator saves: public at once', async () => {
    const houseId = await createListing(h, admin);
    expect((await api(h).detail(houseId)).status).toBe(200);
  });

  test('the detail userType is NONE or AGENT (the spec): an administrator author is not an agent', async () => {
    const teamAdmin = await addAdmin(h.connection, '팀관리자', { userType: 'SERVER' });
    const byAdmin = await createListing(h, teamAdmin);
    expect((await api(h).detail(byAdmin)).body.data).toMatchObject({ nickName: '팀관리자', userType: 'NONE' });
    const byUser = await createListing(h, user);
    expect((await api(h).detail(byUser, user)).body.data.userType).toBe('NONE');
    // An author unknown to the projection falls back to the type stored from the token.
    await h.models.users.deleteOne({ _id: teamAdmin.id });
    expect((await api(h).detail(byAdmin)).body.data).toMatchObject({ nickName: '알 수 없음', userType: 'NONE' });
  });

  test('a general user saves: waiting, unreadable by others until an admin approves', async () => {
    const houseId = await createListing(h, user, { title: '승인 대기 집' });
    expectError(await api(h).detail(houseId), 404, 'C0001');
    expectError(await api(h).detail(houseId, other), 404, 'C0001');
    expect((await api(h).detail(houseId, user)).status).toBe(200);
    expect((await api(h).detail(houseId, admin)).status).toBe(200);
    expect((await api(h).list('search=승인 대기 집')).body.data.totalElements).toBe(0);

    const waiting = await api(h).waiting(admin, 'size=50');
    expect(waiting.status).toBe(200);
    expect(waiting.body.data.content.map((i: { houseId: number }) => i.houseId)).toContain(houseId);

    expect((await api(h).decide(admin, houseId, { approve: true })).body).toEqual({ code: 'SUCCESS', message: '성공', data: houseId });
    expect((await api(h).detail(houseId, other)).status).toBe(200);
    expect((await api(h).list('search=승인 대기 집')).body.data.totalElements).toBe(1);
    expectError(await api(h).decide(admin, houseId, { approve: true }), 400, 'H0004');
  });

  test('rejection keeps the listing out of sight; the author edit resubmits it', async () => {
    const houseId = await createListing(h, user, { title: '반려될 집' });
    expect((await api(h).decide(admin, houseId, { approve: false, reason: '주소 불명확' })).status).toBe(200);
    expectError(await api(h).detail(houseId, other), 404, 'C0001');
    const own = await api(h).own(user, 'search=반려될');
    expect(own.body.data.content[0]).toMatchObject({ houseId, dealState: 'REJECTED', dealStateName: '승인 거절' });
    expect((await api(h).waiting(admin, 'size=50')).body.data.content.map((i: { houseId: number }) => i.houseId)).not.toContain(houseId);

    await api(h)
      .update(user, houseId, validListing({ title: '반려될 집 수정' }))
      .expect(200);
    expect((await api(h).waiting(admin, 'size=50')).body.data.content.map((i: { houseId: number }) => i.houseId)).toContain(houseId);
  });

  test('approval endpoints are admin-only', async () => {
    const houseId = await createListing(h, user);
    expectError(await api(h).waiting(user), 403, 'J0006');
    expectError(await api(h).waiting(agentUser), 403, 'J0006');
    expectError(await api(h).waiting(undefined), 401, 'J0000');
    expectError(await api(h).decide(agentUser, houseId, { approve: true }), 403, 'J0006');
    expectError(await api(h).decide(admin, houseId, { approve: 'yes' }), 400, 'C0002');
    expectError(await api(h).decide(admin, 99_999_999, { approve: true }), 404, 'C0001');
    expectError(await api(h).detail(houseId, other), 404, 'C0001');
  });
});

describe('drafts', () => {
  test('stored without validation, blank values as empty text, only in the author tmp-save list', async () => {
    const res = await api(h).create(user, { tmpYn: true, title: '쓰다 만 글', city: null, price: null, floorNum: null, contact: '010-1234-5678' });
    expect(res.status).toBe(200);
    const houseId = res.body.data as number;

    const detail = await api(h).detail(houseId, user);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({
      tmpYn: true,
      title: '쓰다 만 글',
      rentalType: '',
      city: '',
      detail: '',
      zipCode: '',
      size: '',
      purpose: '',
      floorNum: 0,
      // A typed phone number is read as its digits in a draft too (issue 33).
      contact: '01012345678',
      createdDate: '',
      price: 0,
      monthlyPrice: 0,
      agentName: null,
      code: '',
      imageUrls: [],
      recommendedTag: [],
      recommendedTagName: [],
    });
    expectError(await api(h).detail(houseId), 404, 'C0001');
    expectError(await api(h).detail(houseId, other), 404, 'C0001');
    expectError(await api(h).detail(houseId, admin), 404, 'C0001');

    const drafts = await api(h).drafts(user);
    expect(drafts.status).toBe(200);
    expect(drafts.body.data.content.map((i: { houseId: number }) => i.houseId)).toContain(houseId);
    expect(drafts.body.data.pageable).toMatchObject({ pageNumber: 0, pageSize: 10, offset: 0, paged: true, unpaged: false });
    expect((await api(h).drafts(other)).body.data.content.map((i: { houseId: number }) => i.houseId)).not.toContain(houseId);
    expect((await api(h).list('search=쓰다 만 글')).body.data.totalElements).toBe(0);
    expectError(await api(h).scrap(user, houseId), 404, 'C0001');
  });

  test('a draft edit stays a draft; saving it runs validation; a saved listing cannot go back to draft', async () => {
    const houseId = (await api(h).create(agentUser, { tmpYn: true, title: '초안' })).body.data as number;
    await api(h).update(agentUser, houseId, { tmpYn: true, title: '초안 2', rentalType: 'JEONSE' }).expect(200);
    expect((await api(h).detail(houseId, agentUser)).body.data).toMatchObject({ title: '초안 2', rentalType: 'JEONSE', tmpYn: true });

    const missing = await api(h).update(agentUser, houseId, { tmpYn: false, title: '초안 2', rentalType: 'JEONSE' });
    expectError(missing, 400, 'C0002');
    expect(missing.body.message).toContain(fieldLabels.city);

    await api(h)
      .update(agentUser, houseId, validListing({ title: '완성본' }))
      .expect(200);
    const detail = await api(h).detail(houseId);
    expect(detail.body.data).toMatchObject({ title: '완성본', tmpYn: false });
    expect((await api(h).drafts(agentUser)).body.data.content.map((i: { houseId: number }) => i.houseId)).not.toContain(houseId);

    const back = await api(h).update(agentUser, houseId, { tmpYn: true, title: '되돌리기' });
    expectError(back, 400, 'C0002');
    expect((await api(h).detail(houseId)).body.data.title).toBe('완성본');
  });

  test('a draft still needs a well-formed body: tmpYn, JSON types, bounded sizes, known enum names', async () => {
    expectError(await api(h).create(user, { title: 'x' }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, price: '비쌈' }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, title: 'x'.repeat(101) }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, code: 'x'.repeat(20_001) }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, recommendedTag: ['NOPE'] }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, rentalType: 'RENT' }), 400, 'C0002');
    expectError(await api(h).create(user, { tmpYn: true, hacker: 1 }), 400, 'C0002');
  });
});

describe('save validation', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['rentalType', { rentalType: undefined }],
    ['rentalType', { rentalType: 'RENT' }],
    ['city', { city: '  ' }],
    ['city', { city: '서울 강남구' }],
    ['detail', { detail: 'x'.repeat(201) }],
    ['zipCode', { zipCode: '12-345' }],
    ['size', { size: '넓음' }],
    ['purpose', { purpose: 'x'.repeat(101) }],
    ['floorNum', { floorNum: undefined }],
    ['floorNum', { floorNum: 1.5 }],
    ['contact', { contact: '010-1234-567o' }],
    ['contact', { contact: '010-123' }],
    ['createdDate', { createdDate: '98' }],
    ['price', { price: '12,000' }],
    ['price', { price: '1e3' }],
    ['price', { price: '' }],
    ['monthlyPrice', { monthlyPrice: -1 }],
    ['title', { title: '' }],
    ['code', { code: '' }],
    ['imageUrls', { imageUrls: 'a.jpg' }],
    ['recommendedTag', { recommendedTag: ['HAVE_PETS'] }],
  ];
  test.each(cases)('C0002 naming %s', async (field, overrides) => {
    const res = await api(h).create(agentUser, validListing(overrides));
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(fieldLabels[field] ?? field);
  });

  test('body over 10000 characters: H0000; exactly 10000 (Korean text) is accepted', async () => {
    const res = await api(h).create(agentUser, validListing({ code: '가'.repeat(10_001) }));
    expect(res.body).toEqual({ code: 'H0000', message: '빈집 게시글의 내용이 10000자를 넘었습니다.' });
    expect(res.status).toBe(400);
    await api(h)
      .create(agentUser, validListing({ code: '가'.repeat(10_000) }))
      .expect(200);
    const id = await createListing(h, agentUser);
    expectError(await api(h).update(agentUser, id, validListing({ code: 'a'.repeat(10_001) })), 400, 'H0000');
  });

  test('numbers typed into form inputs arrive as text: saved, stored and answered as numbers; a cleared floor is 0', async () => {
    const res = await api(h).create(agentUser, validListing({ price: '3000', monthlyPrice: '45.5', floorNum: '' }));
    expect(res.status).toBe(200);
    const detail = (await api(h).detail(res.body.data as number)).body.data;
    expect(detail).toMatchObject({ price: 3000, monthlyPrice: 45.5, floorNum: 0 });
    const stored = await h.models.houses
      .findById(res.body.data as number)
      .lean()
      .exec();
    expect(stored).toMatchObject({ price: 3000, monthlyPrice: 45.5, floorNum: 0 });

    const edited = await api(h).update(agentUser, res.body.data as number, validListing({ floorNum: '-1', price: '0' }));
    expect(edited.status).toBe(200);
    expect((await api(h).detail(res.body.data as number)).body.data).toMatchObject({ floorNum: -1, price: 0 });
  });

  test('a draft takes the same texts, and an empty text as no value', async () => {
    const res = await api(h).create(user, { tmpYn: true, price: '3000', monthlyPrice: '', floorNum: '1' });
    expect(res.status).toBe(200);
    expect((await api(h).detail(res.body.data as number, user)).body.data).toMatchObject({ price: 3000, monthlyPrice: 0, floorNum: 1 });
  });

  test('null and empty recommendedTag are accepted; monthly rent keeps decimals', async () => {
    const a = await createListing(h, agentUser, { recommendedTag: null, rentalType: 'MONTHLYRENT', price: 500, monthlyPrice: 35.5 });
    const b = await createListing(h, agentUser, { recommendedTag: [] });
    expect((await api(h).detail(a)).body.data).toMatchObject({ recommendedTag: [], recommendedTagName: [], price: 500, monthlyPrice: 35.5 });
    expect((await api(h).detail(b)).body.data.recommendedTag).toEqual([]);
  });
});

describe('update and delete', () => {
  test('only the author edits; a general user edit sends the listing back to waiting', async () => {
    const houseId = await createListing(h, user, { title: '원래 제목' });
    await api(h).decide(admin, houseId, { approve: true }).expect(200);
    expectError(await api(h).update(other, houseId, validListing({ title: '남의 수정' })), 403, 'C0003');
    expectError(await api(h).update(admin, houseId, validListing({ title: '관리자 수정' })), 403, 'C0003');
    expectError(await api(h).update(agentUser, houseId, validListing({ title: '중개사 수정' })), 403, 'C0003');
    expect((await api(h).detail(houseId, other)).body.data.title).toBe('원래 제목');

    const res = await api(h).update(user, houseId, validListing({ title: '고친 제목', floorNum: null }));
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: houseId });
    expectError(await api(h).detail(houseId, other), 404, 'C0001');
    expect((await api(h).detail(houseId, user)).body.data).toMatchObject({ title: '고친 제목', floorNum: 0 });
  });

  test('an agent edit keeps the listing public and replaces the content', async () => {
    const houseId = await createListing(h, agentUser, { title: '중개 매물' });
    await api(h)
      .update(agentUser, houseId, validListing({ title: '중개 매물 수정', rentalType: 'JEONSE' }))
      .expect(200);
    expect((await api(h).detail(houseId, other)).body.data).toMatchObject({ title: '중개 매물 수정', rentalType: 'JEONSE' });
  });

  test('author or admin deletes (soft); others get C0003; then everything answers C0001', async () => {
    const a = await createListing(h, agentUser, { title: '지울 집 A' });
    const b = await createListing(h, agentUser, { title: '지울 집 B' });
    expectError(await api(h).remove(other, a), 403, 'C0003');
    expect((await api(h).remove(agentUser, a)).body).toEqual({ code: 'SUCCESS', message: '성공' });
    await api(h).remove(admin, b).expect(200);
    for (const id of [a, b]) {
      expectError(await api(h).detail(id, agentUser), 404, 'C0001');
      expectError(await api(h).remove(agentUser, id), 404, 'C0001');
      expectError(await api(h).update(agentUser, id, validListing()), 404, 'C0001');
    }
    expect((await api(h).list('search=지울 집')).body.data.totalElements).toBe(0);
    expect(await h.models.houses.countDocuments({ _id: { $in: [a, b] }, deleted: true })).toBe(2);
  });

  test('missing listing and bad ids', async () => {
    expectError(await api(h).detail(99_999_999), 404, 'C0001');
    expectError(await api(h).detail('abc'), 400, 'C0002');
    expectError(await api(h).detail('0'), 400, 'C0002');
    expectError(await api(h).detail('1'.repeat(30)), 400, 'C0002');
    expectError(await api(h).remove(user, 99_999_999), 404, 'C0001');
  });

  test('writes need a token', async () => {
    expectError(await api(h).raw.post('/api/v1/houses').send(validListing()), 401, 'J0000');
    expectError(await api(h).raw.get('/api/v1/houses/tmp-save'), 401, 'J0000');
    expectError(await api(h).raw.put('/api/v1/houses/1').set('Authorization', 'Bearer abc').send(validListing()), 401, 'J0004');
  });
});

describe('deal completion', () => {
  test('author marks ONGOING as COMPLETED; anything else H0004; others C0003', async () => {
    const houseId = await createListing(h, agentUser, { title: '거래 완료 예정' });
    expectError(await api(h).complete(other, houseId), 403, 'C0003');
    expect((await api(h).complete(agentUser, houseId)).body).toEqual({ code: 'SUCCESS', message: '성공', data: houseId });
    expect((await api(h).detail(houseId)).body.data.isCompleted).toBe(true);
    expectError(await api(h).complete(agentUser, houseId), 400, 'H0004');

    const waiting = await createListing(h, user);
    expectError(await api(h).complete(user, waiting), 400, 'H0004');
    const draft = (await api(h).create(user, { tmpYn: true })).body.data as number;
    expectError(await api(h).complete(user, draft), 400, 'H0004');
    const deleted = await createListing(h, agentUser);
    await api(h).remove(agentUser, deleted).expect(200);
    expectError(await api(h).complete(agentUser, deleted), 400, 'H0004');
    expectError(await api(h).complete(agentUser, 99_999_999), 404, 'C0001');
  });
});
