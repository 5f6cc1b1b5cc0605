/**
 * The records service as a real process behind the real gateway, with administrators made by the project's
 * own admin tool (scripts/admin-create.ts) in the real accounts service and signed in through the gateway:
 * the accounts.user.* snapshots reach records over NATS, the author's team becomes the reviewers, and the
 * review flow runs to approval. Needs the built processes (`npx tsc -b`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectedUserModel } from '@binzip/shared';
import { recordCommentCreated, type RecordCommentCreatedV1 } from '@binzip/events';
import type { Connection } from 'mongoose';
import { REPO_ROOT } from '../../scripts/lib/system';
import { eventually, testEnv } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

const run = promisify(execFile);
const PASSWORD = 'Passw0rd!';

let e2e: E2eSystem;
let recordsDb: Connection;
let published: RecordCommentCreatedV1[];

const api = <T = unknown>(method: string, urlPath: string, token?: string, body?: unknown) => e2e.api<T>(method, urlPath, { token, body });

interface Admin {
  id: number;
  userName: string;
  nick: string;
  auth: string;
}

/** Creates an administrator with the project's CLI, then signs in through the gateway. */
async function createAdmin(userName: string, nick: string, phone: string, type: 'WEB' | 'SERVER'): Promise<Admin> {
  const env = testEnv();
  const { stdout } = await run(
    path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    [
      'scripts/admin-create.ts',
      '--userName',
      userName,
      '--password',
      PASSWORD,
      '--nick_name',
      nick,
      '--phone_num',
      phone,
      '--email',
      `${userName}@example.com`,
      '--type',
      type,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        MONGODB_URI: env.mongoUri,
        MONGODB_DB: e2e.dbName('accounts'),
        NATS_URL: e2e.natsUrl,
        NATS_PREFIX: e2e.names.natsPrefix,
        LOG_LEVEL: 'silent',
        BCRYPT_COST: '4',
      },
      timeout: 60_000,
    },
  );
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  const created = JSON.parse(line ?? 'null') as { id: number; userName: string };
  expect(created.userName).toBe(userName);
  const auth = await e2e.signIn(userName, PASSWORD);
  expect(auth).toMatch(/^Bearer /);
  return { id: created.id, userName, nick, auth };
}

beforeAll(async () => {
  // The test plays a load balancer on loopback that names each anonymous viewer in X-Forwarded-For, so the
  // gateway is told to trust loopback (by default it trusts nobody).
  e2e = await startE2eSystem('recordse2e', {
    services: ['accounts', 'records'],
    env: { LOG_LEVEL: 'warn', BCRYPT_COST: '4', TRUST_PROXY: 'loopback' },
  });
  published = await e2e.collect(recordCommentCreated, 'e2e-record-comment-listener');
  recordsDb = await e2e.db('records');
});

afterAll(async () => {
  await e2e?.stop();
});

test('three WEB administrators and one SERVER administrator walk a record through review to approval', async () => {
  const lead = await createAdmin('webadmin1', '웹관리자일', '01011110001', 'WEB');
  const second = await createAdmin('webadmin2', '웹관리자이', '01011110002', 'WEB');
  const third = await createAdmin('webadmin3', '웹관리자삼', '01011110003', 'WEB');
  const server = await createAdmin('srvadmin1', '서버관리자', '01011110004', 'SERVER');

  // The records service learns about them from accounts.user.* over NATS.
  const projected = projectedUserModel(recordsDb);
  await eventually(
    async () => (await projected.countDocuments({ _id: { $in: [lead.id, second.id, third.id, server.id] }, authority: 'ADMIN', status: 'ACTIVE' })) === 4,
    30_000,
    200,
  );

  const created = await api<number>('POST', '/api/v1/record', lead.auth, {
    title: '배포 장애 회고',
    content: '배포 중 장애가 있었습니다.',
    part: 'web',
    type: 'tech',
    category: 'disaster',
  });
  expect(created.status).toBe(200);
  const recordId = created.body.data!;

  const review0 = await api<{ reviewers: unknown[]; nick_name: string }>('GET', `/api/v1/record/review/${recordId}`, lead.auth);
  expect(review0.body.data?.nick_name).toBe('웹관리자일');
  expect(review0.body.data?.reviewers).toEqual([
    { status: 'wait', nick_name: '웹관리자이' },
    { status: 'wait', nick_name: '웹관리자삼' },
  ]);

  // Readable by id while in review (not listed); the other team cannot review it.
  expect((await api('GET', `/api/v1/record/${recordId}`)).status).toBe(200);
  expect((await api('POST', '/api/v1/record_review', server.auth, { record_id: recordId, content: '다른 팀', status: 'approve' })).body.code).toBe('C0003');

  expect((await api('POST', '/api/v1/record_review', second.auth, { record_id: recordId, content: '좋습니다', status: 'approve' })).status).toBe(200);
  const rejected = await api<number>('POST', '/api/v1/record_review', third.auth, { record_id: recordId, content: '재현 절차가 빠졌습니다', status: 'reject' });
  expect(rejected.status).toBe(200);
  const rejectedList = await api<{ records: { content: { record_id: number }[] } }>('GET', '/api/v1/record/reviewee?status=reject', lead.auth);
  expect(rejectedList.body.data?.records.content.map((r) => r.record_id)).toEqual([recordId]);

  expect((await api('POST', '/api/v1/record_review', lead.auth, { record_id: recordId, content: '보강했습니다', status: 'mine' })).status).toBe(200);
  expect((await api('PUT', `/api/v1/record_review/${rejected.body.data}`, third.auth, { content: '이제 좋습니다', status: 'approve' })).status).toBe(200);

  // Approved: public, counted, commentable; further reviews are refused.
  const approvedList = await api<{ records: { content: { record_id: number }[] } }>('GET', '/api/v1/record/reviewee?status=approve', lead.auth);
  expect(approvedList.body.data?.records.content.map((r) => r.record_id)).toEqual([recordId]);
  const listed = await api<{ records: { content: { record_id: number; nick_name: string }[] } }>('GET', '/api/v1/record/web/tech?category=disaster');
  expect(listed.body.data?.records.content).toEqual([expect.objectContaining({ record_id: recordId, nick_name: '웹관리자일' })]);
  const again = await api('POST', '/api/v1/record_review', second.auth, { record_id: recordId, content: '또', status: 'approve' });
  expect(again.status).toBe(400);
  expect(again.body).toEqual({ code: 'R0000', message: '이미 승인처리된 글입니다.' });

  const comment = await api<number>('POST', '/api/v1/record_comment', server.auth, {
    record_id: recordId,
    parent_id: null,
    content: '서버팀도 참고하겠습니다',
  });
  expect(comment.status).toBe(200);
  const reply = await api<number>('POST', '/api/v1/record_comment', lead.auth, { record_id: recordId, parent_id: comment.body.data, content: '감사합니다' });
  expect(reply.status).toBe(200);

  const detail = await api<{ hits: number; comments: { content: { comment_id: number; level: number; nick_name: string }[] } }>(
    'GET',
    `/api/v1/record/${recordId}`,
    second.auth,
  );
  expect(detail.status).toBe(200);
  expect(detail.body.data?.hits).toBe(1);
  expect(detail.body.data?.comments.content.map((c) => [c.comment_id, c.level, c.nick_name])).toEqual([
    [comment.body.data, 1, '서버관리자'],
    [reply.body.data, 2, '웹관리자일'],
  ]);
  expect((await api<{ hits: number }>('GET', `/api/v1/record/${recordId}`, second.auth)).body.data?.hits).toBe(1);

  // Anonymous viewers are told apart by the client address the gateway forwards.
  const anonymousHits = async (ip: string) => {
    const res = await e2e.api<{ hits: number }>('GET', `/api/v1/record/${recordId}`, { headers: { 'X-Forwarded-For': ip } });
    return res.body.data?.hits;
  };
  expect(await anonymousHits('198.51.100.1')).toBe(2);
  expect(await anonymousHits('198.51.100.1')).toBe(2);
  expect(await anonymousHits('198.51.100.2')).toBe(3);

  const hot = await api<{ records: { record_id: number }[] }>('GET', '/api/v1/record/hot');
  expect(hot.body.data?.records.map((r) => r.record_id)).toContain(recordId);

  // The reply's event names the parent comment's author for notifications.
  const event = await eventually(() => published.find((e) => e.commentId === reply.body.data), 15_000, 100);
  expect(event).toMatchObject({ recordId, recordAuthorId: lead.id, parentCommentAuthorId: server.id, commenterId: lead.id, commenterNickName: '웹관리자일' });
});

test('bad input through the gateway is a 4xx envelope', async () => {
  const noToken = await api('POST', '/api/v1/record', undefined, { title: 't' });
  expect(noToken.status).toBe(401);
  const badId = await api('GET', '/api/v1/record/abc');
  expect(badId.status).toBe(400);
  expect(badId.body.code).toBe('C0002');
});

test("an administrator's deletion of another's record comment reaches accounts' audit trail with who, what and why", async () => {
  const moderator = await createAdmin('auditadmin1', '기록관리자', '01011110005', 'WEB');
  const writer = await createAdmin('auditadmin2', '기록작성자', '01011110006', 'WEB');
  const projected = projectedUserModel(recordsDb);
  await eventually(async () => (await projected.countDocuments({ _id: { $in: [moderator.id, writer.id] }, authority: 'ADMIN' })) === 2, 30_000, 200);
  const recordId = (
    await api<number>('POST', '/api/v1/record', moderator.auth, { title: '감사 기록', content: '본문', part: 'web', type: 'tech', category: 'disaster' })
  ).body.data!;
  const commentId = (await api<number>('POST', '/api/v1/record_comment', writer.auth, { record_id: recordId, parent_id: null, content: '광고 댓글' })).body
    .data!;

  const deleted = await e2e.api('DELETE', `/api/v1/record_comment/${commentId}?reason=${encodeURIComponent('광고성 댓글')}`, {
    token: moderator.auth,
    headers: { 'x-request-id': 'req-record-comment-audit' },
  });
  expect(deleted.status).toBe(200);

  // Records' outbox, the AUDIT stream, accounts' consumer: the entry is read where every other one is.
  type Entry = {
    actor: { id: number; userName: string };
    action: string;
    targetType: string;
    targetId: number;
    reason: string | null;
    requestId: string | null;
  };
  const entries = await eventually(
    async () => {
      const res = await api<{ content: Entry[] }>('GET', `/api/v1/admin/audit?targetType=RECORD&targetId=${recordId}`, moderator.auth);
      return res.body.data?.content.length ? res.body.data.content : undefined;
    },
    30_000,
    200,
  );
  expect(entries).toEqual([
    expect.objectContaining({
      actor: { id: moderator.id, userName: 'auditadmin1' },
      action: 'DELETE_COMMENT',
      targetType: 'RECORD',
      targetId: recordId,
      reason: '광고성 댓글',
      requestId: 'req-record-comment-audit',
    }),
  ]);
  // The member's page asks by memberId: the comment's author is the one the action concerns.
  const byMember = await api<{ content: Entry[] }>('GET', `/api/v1/admin/audit?memberId=${writer.id}`, moderator.auth);
  expect(byMember.body.data?.content.map((e) => e.action)).toEqual(['DELETE_COMMENT']);
});
