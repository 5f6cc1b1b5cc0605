/**
 * The original site's newest web client (ODOICHON/frontend at 5ed793e, after its 2024-08-18 change "농가거래")
 * against this backend, through the real gateway and services (run `npx tsc -b` first). The bodies are the
 * client's own: its listing form (`TradeBoardForm` as the write page builds it and `onPost` sends it: the
 * 매물 유형 `houseType`, an agent's `agentDetail`, the phone as its input formats it `010-5555-6666`, numbers
 * from its price inputs, `createdDate`/`purpose`/`detail` left blank, `floorNum` 0 since its input is gone),
 * its list tabs (`houseType=LAND`), and its 내 매물 관리 page (`/houses/my?page=0`). Issue 33.
 */
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('legacynewest', {
    services: ['accounts', 'houses'],
    env: { LOG_LEVEL: 'warn', BCRYPT_COST: '4' },
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const PASSWORD = 'Passw0rd!';

const member = {
  userName: 'farmguest1',
  password: PASSWORD,
  nick_name: '농가손님',
  phone_num: '01078780001',
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_USED_AGREE'],
  email: 'farmguest1@example.com',
};

const agent = {
  userName: 'farmagent1',
  password: PASSWORD,
  nick_name: '농가중개사',
  phone_num: '01078780002',
  age: '40대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
  agent_code: '1234567890',
  business_code: '12345678901234',
  company_name: '담양 농가 공인중개사사무소',
  agent_name: '김대표',
  company_phone_num: '0612345678',
  assistant_name: null,
  company_address: '전라남도 담양군 담양읍 1',
  company_address_detail: '2층',
  company_email: 'farmoffice@example.com',
  estate: '농가',
};

/**
 * The client's form (src/pages/Trade/Write, src/components/Trade/Quill at 5ed793e), in its key order: the
 * defaults of a new form, filled as a person fills the required inputs.
 */
const tradeForm = (overrides: Record<string, unknown> = {}) => ({
  houseType: 'LAND',
  rentalType: 'SALE',
  city: '전라남도 담양군 창평면 돌담길 12',
  zipCode: '57330',
  detail: '',
  size: '330.58',
  purpose: '',
  floorNum: 0,
  contact: '010-5555-6666',
  createdDate: '',
  price: 3000,
  monthlyPrice: 0,
  agentName: '',
  agentDetail: '',
  title: '주말농장 토지',
  code: '<p>볕 좋은 밭</p>',
  imageUrls: ['https://img.example.com/field.jpg', 'https://img.example.com/field2.jpg'],
  tmpYn: false,
  recommendedTag: ['WANT_TO_FARM'],
  ...overrides,
});

let memberToken: string;
let agentToken: string;

beforeAll(async () => {
  await e2e.signUp(member);
  await e2e.signUp(agent);
  memberToken = await e2e.signIn(member.userName, PASSWORD);
  agentToken = await e2e.signIn(agent.userName, PASSWORD);
});

test('a member drafts a listing (임시저장), then saves it (등록): stored with its type, the contact digits-only, waiting for approval', async () => {
  const draftId = await e2e.ok<number>('POST', '/api/v1/houses', { token: memberToken, body: tradeForm({ tmpYn: true, title: '쓰던 토지 글' }) });
  const draft = await e2e.ok<Loose>('GET', `/api/v1/houses/${draftId}`, { token: memberToken });
  expect(draft).toMatchObject({ tmpYn: true, houseType: 'LAND', contact: '01055556666', createdDate: '', purpose: '' });
  expect(draft).not.toHaveProperty('agentDetail');
  const drafts = await e2e.ok<Loose>('GET', '/api/v1/houses/tmp-save?page=0', { token: memberToken });
  expect(drafts.content.find((i: Loose) => i.houseId === draftId)).toMatchObject({ houseType: 'LAND' });

  // The client edits the draft with the detail it read (state.data) and saves it for good.
  expect(await e2e.ok<number>('PUT', `/api/v1/houses/${draftId}`, { token: memberToken, body: tradeForm({ createdDate: '1975', purpose: '밭' }) })).toBe(
    draftId,
  );
  const saved = await e2e.ok<Loose>('GET', `/api/v1/houses/${draftId}`, { token: memberToken });
  expect(saved).toMatchObject({ tmpYn: false, houseType: 'LAND', contact: '01055556666', createdDate: '1975', purpose: '밭', price: 3000, size: '330.58' });

  // 내 매물 관리 (src/pages/MyPage/trade/myself: houses/my, page = currentPage - 1).
  const mine = await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0', { token: memberToken });
  expect(mine.content).toEqual([expect.objectContaining({ houseId: draftId, houseType: 'LAND', dealState: 'APPLYING', dealStateName: '승인 대기' })]);
  expect(mine.count).toMatchObject({ all: 1, applying: 1 });
});

test('a draft saved before a main photo is chosen (imageUrls [""], as onPost builds it) is stored without the blank; a save with it is C0002', async () => {
  const body = tradeForm({ tmpYn: true, title: '사진 고르기 전', imageUrls: [''], code: '<p>쓰는 중</p>' });
  const draftId = await e2e.ok<number>('POST', '/api/v1/houses', { token: memberToken, body });
  expect(await e2e.ok<Loose>('GET', `/api/v1/houses/${draftId}`, { token: memberToken })).toMatchObject({ tmpYn: true, imageUrls: [] });
  const refused = await e2e.api('PUT', `/api/v1/houses/${draftId}`, { token: memberToken, body: { ...body, tmpYn: false } });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ code: 'C0002', message: '이미지 주소 값이 올바르지 않습니다.' });
  await e2e.ok('DELETE', `/api/v1/houses/${draftId}`, { token: memberToken });
});

test('an agent saves a 농가 listing with its description: public at once, under its tab only, with the description in the detail', async () => {
  const houseId = await e2e.ok<number>('POST', '/api/v1/houses', {
    token: agentToken,
    body: tradeForm({
      houseType: 'FARM_HOUSE',
      title: '담양 농가주택',
      agentName: '김대표',
      agentDetail: 'https://blog.example.com/damyang-office',
      contact: '061-234-5678',
    }),
  });
  const detail = await e2e.ok<Loose>('GET', `/api/v1/houses/${houseId}`);
  expect(detail).toMatchObject({
    houseType: 'FARM_HOUSE',
    agentName: '김대표',
    agentDetail: 'https://blog.example.com/damyang-office',
    contact: '0612345678',
    userType: 'AGENT',
  });

  // The list's tabs (src/pages/Trade: `houseType` only when a tab other than 전체 is chosen).
  const tab = async (query: string): Promise<number[]> => (await e2e.ok<Loose>('GET', `/api/v1/houses?${query}page=0`)).content.map((i: Loose) => i.houseId);
  expect(await tab('')).toContain(houseId);
  expect(await tab('houseType=FARM_HOUSE&')).toEqual([houseId]);
  expect(await tab('houseType=LAND&')).not.toContain(houseId);
  expect(await tab('houseType=HOUSE&')).toEqual([]);
  const item = (await e2e.ok<Loose>('GET', '/api/v1/houses?houseType=FARM_HOUSE&page=0')).content[0];
  expect(item).toMatchObject({ houseId, houseType: 'FARM_HOUSE', title: '담양 농가주택' });

  const mine = await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0', { token: agentToken });
  expect(mine.content).toEqual([expect.objectContaining({ houseId, houseType: 'FARM_HOUSE', dealState: 'ONGOING' })]);
});

test('what the client can still get wrong is C0002 naming the field in Korean, and nothing is stored', async () => {
  const before = (await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0', { token: agentToken })).totalElements;
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ houseType: 'APARTMENT' }, '매물 유형 값이 올바르지 않습니다.'],
    [{ agentDetail: 'x'.repeat(256) }, '중개사 상세 설명 값이 올바르지 않습니다.'],
    [{ contact: '010-5555-666a' }, '연락처 값이 올바르지 않습니다.'],
  ];
  for (const [overrides, message] of bad) {
    const res = await e2e.api('POST', '/api/v1/houses', { token: agentToken, body: tradeForm(overrides) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { code: 'C0002', message } });
  }
  const filter = await e2e.api('GET', '/api/v1/houses?houseType=VILLA&page=0');
  expect(filter.body).toEqual({ code: 'C0002', message: '매물 유형 값이 올바르지 않습니다.' });
  expect((await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0', { token: agentToken })).totalElements).toBe(before);
});
