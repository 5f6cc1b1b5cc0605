/**
 * The three outboxes that feed notifications, end to end through real processes on the run's NATS:
 * accounts (user snapshots -> the recipient's nickname, also after a rename), community (board comments)
 * and records (record comments and replies). Users sign up and sign in through the gateway.
 */
import { eventually } from '../support';
import { startE2eSystem, type E2eSystem, type NotificationItem } from '../support/e2e';

jest.setTimeout(120_000);

const ADMIN = { userName: 'teamweb1', password: 'Admin!234', nick_name: 'webLead', phone_num: '01055550001', email: 'lead@example.com', userType: 'WEB' };
let e2e: E2eSystem;
const tokens: Record<string, string> = {};

const ok = <T = unknown>(method: string, urlPath: string, who?: string, body?: unknown) =>
  e2e.ok<T>(method, urlPath, { token: who ? tokens[who] : undefined, body });

async function signUp(userName: string, nickName: string, phone: string): Promise<void> {
  await e2e.signUp({
    userName,
    password: 'Passw0rd!',
    nick_name: nickName,
    phone_num: phone,
    age: '30대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE'],
    email: `${userName}@example.com`,
  });
}

const inbox = async (who: string) =>
  (await ok<{ notifications: { content: NotificationItem[] } }>('GET', '/api/v1/notifications?size=50', who)).notifications.content;

beforeAll(async () => {
  e2e = await startE2eSystem('notifsrc', {
    services: ['accounts', 'community', 'records', 'notifications'],
    env: { LOG_LEVEL: 'warn', OUTBOX_INTERVAL_MS: '500', BCRYPT_COST: '4', ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]) },
  });
  await signUp('alice01', 'alice', '01055550002');
  await signUp('bob01', 'bob', '01055550003');
  tokens.alice = await e2e.signIn('alice01', 'Passw0rd!');
  tokens.bob = await e2e.signIn('bob01', 'Passw0rd!');
  tokens.admin = await e2e.signIn(ADMIN.userName, ADMIN.password);
});

afterAll(async () => {
  await e2e?.stop();
});

it('notifies a board author of a comment, with nicknames from accounts, and shows a later nickname change', async () => {
  const boardId = await ok<number>('POST', '/api/v1/boards', 'alice', {
    title: '귀촌 준비',
    code: '<p>어디로 갈까요</p>',
    category: 'QUESTION',
    imageUrls: [],
    prefixCategory: 'DEFAULT',
    fixed: false,
  });
  // The author's nickname shows once accounts' snapshot has reached community.
  await eventually(async () => (await e2e.api<{ nickName: string }>('GET', `/api/v1/boards/${boardId}`)).body.data?.nickName === 'alice', 10_000);
  await ok('POST', '/api/v1/comments', 'bob', { boardId, content: '강원도 추천해요' });

  // bob signed up just after alice: his snapshot may reach notifications a moment after the comment does.
  const [item] = await eventually(async () => {
    const items = (await inbox('alice')).filter((n) => n.board_id === boardId);
    return items.length > 0 && items[0]?.comment_user === 'bob' ? items : undefined;
  }, 2_000);
  expect(item).toMatchObject({ nick_name: 'alice', comment_user: 'bob', board_title: '귀촌 준비', comment: '강원도 추천해요', type: 'board', status: false });
  expect(await inbox('bob')).toEqual([]);

  await ok('PUT', '/api/v1/users/update/nick-name', 'alice', { nick_name: 'aliceCountry' });
  await eventually(async () => (await inbox('alice'))[0]?.nick_name === 'aliceCountry', 10_000);
});

it('notifies the record author of comments and the parent comment author of replies, never the commenter', async () => {
  const recordId = await ok<number>('POST', '/api/v1/record', 'admin', {
    title: '장애 대응 회고',
    content: '무슨 일이 있었나',
    part: 'web',
    category: 'culture',
    type: 'odori',
  });
  const aliceComment = await ok<number>('POST', '/api/v1/record_comment', 'alice', { record_id: recordId, parent_id: null, content: '배울 점이 많네요' });
  const adminItems = await eventually(async () => {
    const items = (await inbox('admin')).filter((n) => n.type === 'record' && n.board_id === recordId);
    return items.length > 0 ? items : undefined;
  }, 2_000);
  expect(adminItems).toEqual([
    expect.objectContaining({ nick_name: 'webLead', board_title: '장애 대응 회고', comment: '배울 점이 많네요', comment_user: 'aliceCountry' }),
  ]);

  const bobReply = await ok<number>('POST', '/api/v1/record_comment', 'bob', { record_id: recordId, parent_id: aliceComment, content: '동의합니다' });
  await ok('POST', '/api/v1/record_comment', 'admin', { record_id: recordId, parent_id: bobReply, content: '읽어줘서 고마워요' });
  const bobItems = await eventually(async () => {
    const items = (await inbox('bob')).filter((n) => n.board_id === recordId);
    return items.length > 0 ? items : undefined;
  }, 5_000);
  expect(bobItems).toEqual([expect.objectContaining({ comment: '읽어줘서 고마워요', comment_user: 'webLead', type: 'record' })]);
  const aliceItems = (await inbox('alice')).filter((n) => n.type === 'record');
  expect(aliceItems).toEqual([expect.objectContaining({ comment: '동의합니다', comment_user: 'bob', board_id: recordId })]);
  const adminAll = (await inbox('admin')).filter((n) => n.board_id === recordId).map((n) => n.comment);
  expect(adminAll.sort()).toEqual(['동의합니다', '배울 점이 많네요']);
});
