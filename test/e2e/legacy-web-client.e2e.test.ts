/**
 * The original web client (ODOICHON/frontend at e3fd571) against this backend, through the real gateway and
 * services (run `npx tsc -b` first): the request shapes that client sends, as it sends them (numbers typed
 * into form inputs as text, a cleared input as "", `/houses/my?page=&keyword=`, `limit=100` on the intro
 * page), and what a person then sees. Issue 18; logout is in legacy-web-client-sessions.e2e.test.ts.
 */
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('legacyweb', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
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
  userName: 'webclient1',
  password: PASSWORD,
  nick_name: '웹손님',
  phone_num: '01077770001',
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_USED_AGREE'],
  email: 'webclient1@example.com',
};

/** The agent form: the contract's agent body, no `email` but `company_email`. */
const agent = {
  userName: 'webagent1',
  password: PASSWORD,
  nick_name: '웹중개사',
  phone_num: '01077770002',
  age: '40대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
  agent_code: '1234567890',
  business_code: '12345678901234',
  company_name: '담양 공인중개사사무소',
  agent_name: '김대표',
  company_phone_num: '0612345678',
  assistant_name: null,
  company_address: '전라남도 담양군 담양읍 1',
  company_address_detail: '2층',
  company_email: 'office@example.com',
  estate: '주택',
};

/** The house form as the client sends it: every number as the text of its input. */
const houseForm = (overrides: Record<string, unknown> = {}) => ({
  rentalType: 'MONTHLYRENT',
  city: '전라남도 담양군 창평면',
  detail: '삼지내마을 12',
  zipCode: '57330',
  size: '99.2',
  purpose: '주거용',
  floorNum: '1',
  contact: '01055556666',
  createdDate: '1975',
  price: '3000',
  monthlyPrice: '45.5',
  agentName: '김대표',
  title: '돌담길 한옥',
  code: '<p>돌담길 옆 한옥</p>',
  imageUrls: ['https://img.example.com/hanok.jpg'],
  tmpYn: false,
  recommendedTag: ['WANT_TO_READY_HOUSE'],
  ...overrides,
});

test('a member and an agent sign up with the client bodies; the agent e-mail is company_email', async () => {
  await e2e.signUp(member);
  await e2e.signUp(agent);
  const token = await e2e.signIn(agent.userName, PASSWORD);
  expect(await e2e.ok<Loose>('GET', '/api/v1/users', { token })).toMatchObject({ email: 'office@example.com', userType: 'AGENT' });
});

test('an agent drafts and saves a listing typed into the form; it is saved with numbers, shows in 내 매물 관리 and its sale is completed there', async () => {
  const token = await e2e.signIn(agent.userName, PASSWORD);
  // A draft with a cleared floor and rent.
  const draftId = await e2e.ok<number>('POST', '/api/v1/houses', { token, body: { ...houseForm({ floorNum: '', monthlyPrice: '' }), tmpYn: true } });
  expect(await e2e.ok<Loose>('GET', `/api/v1/houses/${draftId}`, { token })).toMatchObject({ tmpYn: true, floorNum: 0, monthlyPrice: 0, price: 3000 });
  // Saved from the draft: numbers as text; a cleared floor is stored as 0.
  expect(await e2e.ok<number>('PUT', `/api/v1/houses/${draftId}`, { token, body: houseForm({ floorNum: '' }) })).toBe(draftId);
  const saved = await e2e.ok<Loose>('GET', `/api/v1/houses/${draftId}`);
  expect(saved).toMatchObject({ houseId: draftId, tmpYn: false, price: 3000, monthlyPrice: 45.5, floorNum: 0 });
  const second = await e2e.ok<number>('POST', '/api/v1/houses', { token, body: houseForm({ title: '대숲 옆 집' }) });
  expect(await e2e.ok<Loose>('GET', `/api/v1/houses/${second}`)).toMatchObject({ floorNum: 1, price: 3000, monthlyPrice: 45.5 });
  // Text that is not exactly a number is still refused, naming the field as a person reads it.
  const refused = await e2e.api('POST', '/api/v1/houses', { token, body: houseForm({ price: '3,000' }) });
  expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: { code: 'C0002', message: '가격 값이 올바르지 않습니다.' } });

  // 내 매물 관리: /houses/my?page=&keyword=
  const mine = await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0&keyword=', { token });
  expect(mine.content.map((item: Loose) => item.houseId).sort()).toEqual([draftId, second].sort());
  expect(mine.count).toMatchObject({ all: 2, ongoing: 2 });
  const searched = await e2e.ok<Loose>('GET', `/api/v1/houses/my?page=0&keyword=${encodeURIComponent('대숲')}`, { token });
  expect(searched.content.map((item: Loose) => item.houseId)).toEqual([second]);
  // The client marks the sale completed with its deal form as the body.
  const dealForm = { score: 5, review: '친절했습니다', nickName: '웹손님', age: '30대', contact: '01077770001', dealDate: '2024-07-15' };
  expect(await e2e.ok<number>('PUT', `/api/v1/houses/status/${second}`, { token, body: dealForm })).toBe(second);
  const after = await e2e.ok<Loose>('GET', '/api/v1/houses/my?page=0&keyword=', { token });
  expect(after.content.find((item: Loose) => item.houseId === second)).toMatchObject({ dealState: 'COMPLETED', dealStateName: '판매완료' });
});

test('a member reports a listing and still reads it; a report without a reason names 신고 사유', async () => {
  const agentToken = await e2e.signIn(agent.userName, PASSWORD);
  const houseId = await e2e.ok<number>('POST', '/api/v1/houses', { token: agentToken, body: houseForm({ title: '신고될 집' }) });
  const token = await e2e.signIn(member.userName, PASSWORD);
  const missing = await e2e.api('PUT', `/api/v1/houses/report/${houseId}`, { token, body: { reportType: 'FAKE_SALE' } });
  expect(missing.body).toEqual({ code: 'C0002', message: '신고 사유 값이 누락되었습니다.' });
  await e2e.ok('PUT', `/api/v1/houses/report/${houseId}`, { token, body: { reportType: 'FAKE_SALE', reportReason: '없는 집 같아요' } });
  expect(await e2e.ok<Loose>('GET', `/api/v1/houses/user-scrap/${houseId}`, { token })).toMatchObject({ houseId, title: '신고될 집' });
  const list = await e2e.ok<Loose>('GET', '/api/v1/houses?page=0&size=50');
  expect(list.content.some((item: Loose) => item.houseId === houseId)).toBe(false);
});

test('the intro page asks for 100 previews and gets at most 50; a comment carries the board id as text', async () => {
  const token = await e2e.signIn(member.userName, PASSWORD);
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token,
    body: { title: '소개합니다', code: '<p>안녕하세요</p>', category: 'DAILY', imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const preview = await e2e.ok<Loose[]>('GET', '/api/v1/boards/preview?prefix=COMMUNITY&limit=100');
  expect(preview.length).toBeLessThanOrEqual(50);
  expect(preview.map((item) => item.boardId)).toContain(boardId);
  expect(await e2e.ok<number>('POST', '/api/v1/comments', { token, body: { boardId: String(boardId), content: '반가워요' } })).toEqual(expect.any(Number));
});
