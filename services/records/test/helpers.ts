import {
  EventBus,
  RECORDS_COMMENT_CREATED,
  applyUserSnapshot,
  createLogger,
  projectedUserModel,
  recordCommentCreatedV1,
  type AuthClaims,
  type RecordCommentCreatedV1,
  type RunningConsumer,
  type UserType,
} from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer, connectTestDb, dropTestDb, isolatedNames, testEnv, userSnapshot } from '../../../test/support';
import { buildApp } from '../src/app';
import { initModels, recordsModels } from '../src/models';

export interface Harness {
  connection: Connection;
  app: Express;
  clock: { now: Date };
  eventsPending: { count: number };
  close(): Promise<void>;
}

/** A records app on its own database, with a clock the test moves. */
export async function startHarness(label: string): Promise<Harness> {
  const names = isolatedNames(label);
  const connection = await connectTestDb(names.db);
  await initModels(recordsModels(connection));
  const clock = { now: new Date('2024-03-05T03:00:00.000Z') };
  const eventsPending = { count: 0 };
  const app = buildApp({
    connection,
    logger: createLogger('test', 'silent'),
    publicKey: testEnv().publicKey,
    now: () => new Date(clock.now.getTime()),
    onEventsPending: () => {
      eventsPending.count += 1;
    },
  });
  return {
    connection,
    app,
    clock,
    eventsPending,
    close: () => dropTestDb(connection),
  };
}

export interface TestUser {
  id: number;
  nick: string;
  claims: AuthClaims;
  auth: string;
}

let versionSeq = 1;

/** Feeds the projection the way accounts' snapshots would, and gives a token for the same user. */
export async function addUser(
  h: Harness,
  id: number,
  nick: string,
  kind: { authority: 'USER' | 'ADMIN'; userType: UserType; status?: 'ACTIVE' | 'WITHDRAWAL_REQUESTED' | 'WITHDRAWN' },
): Promise<TestUser> {
  await applyUserSnapshot(
    projectedUserModel(h.connection),
    userSnapshot(id, nick, { userType: kind.userType, authority: kind.authority, status: kind.status ?? 'ACTIVE', version: versionSeq++ }),
  );
  const claims: AuthClaims = { userId: id, userName: `user${id}`, authority: kind.authority, userType: kind.userType };
  return { id, nick, claims, auth: bearer(claims) };
}

export const admin = (userType: 'WEB' | 'SERVER') => ({ authority: 'ADMIN' as const, userType });
export const member = { authority: 'USER' as const, userType: 'NONE' as const };

export const recordBody = (overrides: Record<string, unknown> = {}) => ({
  title: '장애 회고',
  content: '서버가 멈췄던 날의 기록입니다.',
  part: 'server',
  type: 'tech',
  category: 'disaster',
  ...overrides,
});

export async function createRecord(h: Harness, author: TestUser, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await request(h.app).post('/api/v1/record').set('Authorization', author.auth).send(recordBody(overrides));
  if (res.status !== 200) throw new Error(`record create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export async function review(h: Harness, by: TestUser, recordId: number, status: string, content = '리뷰') {
  return request(h.app).post('/api/v1/record_review').set('Authorization', by.auth).send({ record_id: recordId, content, status });
}

/** Approves a record by every one of its reviewers. */
export async function approveBy(h: Harness, recordId: number, reviewers: TestUser[]): Promise<void> {
  for (const r of reviewers) {
    const res = await review(h, r, recordId, 'approve', '좋아요');
    if (res.status !== 200) throw new Error(`approve failed: ${JSON.stringify(res.body)}`);
  }
}

/** A durable consumer on records.comment.created that collects every event into `received`. */
export function probeRecordComments(bus: EventBus, received: RecordCommentCreatedV1[]): Promise<RunningConsumer> {
  return bus.consume({
    stream: 'RECORDS',
    durable: 'probe',
    filterSubject: RECORDS_COMMENT_CREATED,
    schema: recordCommentCreatedV1,
    handle: async (event) => {
      received.push(event);
    },
  });
}
