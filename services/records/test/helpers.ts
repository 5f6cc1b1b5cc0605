import { consume, type EventBus, type RunningConsumer } from '@binzip/shared';
import { recordCommentCreated, type RecordCommentCreatedV1 } from '@binzip/events';
import request from 'supertest';
import { startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { initModels, recordsModels, type RecordsModels } from '../src/models';

export type RecordsHarness = ServiceHarness<RecordsModels>;

/** The date every records test starts on (records show `MM.DD.YYYY`, so tests pin the day): 03.05.2024 in Korea. */
export const CLOCK_START = new Date('2024-03-05T03:00:00.000Z');

/** The records app on its own database and NATS prefix, with the clock standing at `CLOCK_START`. */
export const startRecordsHarness = (label: string): Promise<RecordsHarness> =>
  startServiceHarness(label, { models: recordsModels, initModels, buildApp }, { clockStart: CLOCK_START });

export const recordBody = (overrides: Record<string, unknown> = {}) => ({
  title: '장애 회고',
  content: '서버가 멈췄던 날의 기록입니다.',
  part: 'server',
  type: 'tech',
  category: 'disaster',
  ...overrides,
});

export async function createRecord(h: RecordsHarness, author: TestPerson, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await request(h.app).post('/api/v1/record').set('Authorization', author.token).send(recordBody(overrides));
  if (res.status !== 200) throw new Error(`record create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export async function review(h: RecordsHarness, by: TestPerson, recordId: number, status: string, content = '리뷰') {
  return request(h.app).post('/api/v1/record_review').set('Authorization', by.token).send({ record_id: recordId, content, status });
}

/** Approves a record by every one of its reviewers. */
export async function approveBy(h: RecordsHarness, recordId: number, reviewers: TestPerson[]): Promise<void> {
  for (const r of reviewers) {
    const res = await review(h, r, recordId, 'approve', '좋아요');
    if (res.status !== 200) throw new Error(`approve failed: ${JSON.stringify(res.body)}`);
  }
}

/** A durable consumer on records.comment.created that collects every event into `received`. */
export function probeRecordComments(bus: EventBus, received: RecordCommentCreatedV1[]): Promise<RunningConsumer> {
  return bus.consume(
    consume(recordCommentCreated, {
      durable: 'probe',
      handle: async (event) => {
        received.push(event);
      },
    }),
  );
}
