import { defaultCeilingSettings } from '@binzip/shared';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp as accountsApp } from '../services/accounts/src/service';
import { accountsModels, initModels as initAccounts } from '../services/accounts/src/models';
import { LocalMailSender, LocalSmsSender } from '../services/accounts/src/domain/senders';
import { buildApp as communityApp } from '../services/community/src/service';
import { communityModels, initModels as initCommunity } from '../services/community/src/models';
import { boardPayload } from '../services/community/test/helpers';
import { buildApp as housesApp } from '../services/houses/src/service';
import { housesModels, initModels as initHouses } from '../services/houses/src/models';
import { validListing } from '../services/houses/test/helpers';
import { buildApp as notificationsApp } from '../services/notifications/src/service';
import { initModels as initNotifications, notificationsModels } from '../services/notifications/src/models';
import { buildApp as recordsApp } from '../services/records/src/service';
import { initModels as initRecords, recordsModels } from '../services/records/src/models';
import { recordBody } from '../services/records/test/helpers';
import { expectError, testEnv } from './support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from './support/service';

/**
 * Issue 19 item 12: one member's writes are held to `CEILING_MEMBER_WRITES` per window in every service
 * (429 C0004 with Retry-After), counted in the service's store; other members and administrators go on.
 */
const LIMIT = 4;
const ceilings = { ...defaultCeilingSettings(), CEILING_MEMBER_WRITES: LIMIT };

interface Case {
  service: string;
  start: () => Promise<ServiceHarness<unknown>>;
  /** One real write of the service by `who`. */
  write: (app: Express, who: TestPerson) => request.Test;
}

const cases: Case[] = [
  {
    service: 'community',
    start: () => startServiceHarness('ceilcommunity', { models: communityModels, initModels: initCommunity, buildApp: communityApp }, { ceilings }),
    write: (app, who) => request(app).post('/api/v1/boards').set('Authorization', who.token).send(boardPayload()),
  },
  {
    service: 'houses',
    start: () => startServiceHarness('ceilhouses', { models: housesModels, initModels: initHouses, buildApp: housesApp }, { ceilings }),
    write: (app, who) => request(app).post('/api/v1/houses').set('Authorization', who.token).send(validListing()),
  },
  {
    service: 'records',
    start: () => startServiceHarness('ceilrecords', { models: recordsModels, initModels: initRecords, buildApp: recordsApp }, { ceilings }),
    write: (app, who) => request(app).post('/api/v1/record').set('Authorization', who.token).send(recordBody()),
  },
  {
    service: 'notifications',
    start: () =>
      startServiceHarness('ceilnotifications', { models: notificationsModels, initModels: initNotifications, buildApp: notificationsApp }, { ceilings }),
    write: (app, who) => request(app).put('/api/v1/notifications/999').set('Authorization', who.token),
  },
  {
    service: 'accounts',
    start: () =>
      startServiceHarness(
        'ceilaccounts',
        { models: accountsModels, initModels: initAccounts, buildApp: accountsApp },
        {
          ceilings,
          extra: { privateKey: testEnv().privateKey, senders: { sms: new LocalSmsSender(undefined), mail: new LocalMailSender(undefined) }, bcryptCost: 4 },
        },
      ),
    write: (app, who) => request(app).put('/api/v1/users/update/nickname').set('Authorization', who.token).send({ nick_name: '새닉네임' }),
  },
];

describe.each(cases)('$service: per-member write ceiling', ({ start, write }) => {
  let h: ServiceHarness<unknown>;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => h?.close());

  it('answers the member 429 C0004 with Retry-After past the ceiling, while others keep writing', async () => {
    const member = await addMember(h.connection, 'writer');
    const other = await addMember(h.connection, 'other');
    const admin = await addAdmin(h.connection, 'admin');
    const burst = await Promise.all(Array.from({ length: LIMIT * 3 }, () => write(h.app, member)));
    expect(burst.filter((res) => res.status !== 429)).toHaveLength(LIMIT);
    const refused = burst.find((res) => res.status === 429)!;
    expectError(refused, 429, 'C0004');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(ceilings.CEILING_MEMBER_WRITES_WINDOW_SECONDS);
    expect((await write(h.app, other)).status).not.toBe(429);
    // The back office's bulk work is not counted.
    for (let i = 0; i <= LIMIT; i++) expect((await write(h.app, admin)).status).not.toBe(429);
  });
});

it('community: 300 posts at once from one member write only the ceiling', async () => {
  const h = await startServiceHarness('ceilflood', { models: communityModels, initModels: initCommunity, buildApp: communityApp }, { ceilings });
  try {
    const member = await addMember(h.connection, 'flooder');
    const answers = await Promise.all(Array.from({ length: 300 }, () => cases[0].write(h.app, member)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(LIMIT);
    expect(await h.models.boards.countDocuments({})).toBe(LIMIT);
  } finally {
    await h.close();
  }
});
