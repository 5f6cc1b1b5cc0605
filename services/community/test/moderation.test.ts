import { adminActionRecorded, type OutboxEvent } from '@binzip/shared';
import request from 'supertest';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { postBoard, postComment } from './helpers';

/** Issue 40 in community: pin, unpin and an administrator's deletions store their audit entry with the write. */

let h: ServiceHarness<CommunityModels>;
let admin: TestPerson;
let member: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('communitymoderation', { models: communityModels, initModels, buildApp });
  admin = await addAdmin(h.connection, '검토자');
  member = await addMember(h.connection, '글쓴이');
});
afterAll(() => h.close());

const audits = (events: OutboxEvent[] | undefined) =>
  (events ?? []).filter((e) => e.subject === 'audit.community').map((e) => adminActionRecorded.schema.parse(e.data));
const boardAudit = async (id: number) => audits((await h.models.boards.findById(id, { pendingEvents: 1 }).lean().exec())?.pendingEvents);
const commentAudit = async (id: number) => audits((await h.models.comments.findById(id, { pendingEvents: 1 }).lean().exec())?.pendingEvents);
const pin = (boardId: number, fixed: boolean) => request(h.app).put(`/api/v1/admin/boards/${boardId}/fixed`).set('Authorization', admin.token).send({ fixed });

it('pin and unpin are audited once each; repeating either is no action and no entry', async () => {
  const id = await postBoard(h.app, member, { prefixCategory: 'ADVERTISEMENT', category: null });
  await pin(id, true).set('x-request-id', 'req-pin-1').expect(200);
  await pin(id, true).expect(200);
  await pin(id, false).expect(200);
  await pin(id, false).expect(200);
  expect((await boardAudit(id)).map((e) => [e.action, e.targetType, e.targetId, e.memberId, e.actorId])).toEqual([
    ['PIN', 'BOARD', id, member.id, admin.id],
    ['UNPIN', 'BOARD', id, member.id, admin.id],
  ]);
  expect((await boardAudit(id))[0]?.requestId).toBe('req-pin-1');
});

it("an administrator deleting a member's post or comment is audited; members deleting their own are not", async () => {
  const moderated = await postBoard(h.app, member);
  const own = await postBoard(h.app, member);
  const comment = await postComment(h.app, member, own);
  const ownComment = await postComment(h.app, member, own);
  await request(h.app).delete(`/api/v1/boards/${moderated}`).set('Authorization', admin.token).expect(200);
  await request(h.app).delete(`/api/v1/comments/${comment}`).set('Authorization', admin.token).expect(200);
  await request(h.app).delete(`/api/v1/comments/${ownComment}`).set('Authorization', member.token).expect(200);
  await request(h.app).delete(`/api/v1/boards/${own}`).set('Authorization', member.token).expect(200);
  expect(await boardAudit(moderated)).toEqual([expect.objectContaining({ action: 'DELETE', targetType: 'BOARD', targetId: moderated, memberId: member.id })]);
  expect(await commentAudit(comment)).toEqual([expect.objectContaining({ action: 'DELETE', targetType: 'COMMENT', targetId: comment, memberId: member.id })]);
  expect(await boardAudit(own)).toEqual([]);
  expect(await commentAudit(ownComment)).toEqual([]);
});
