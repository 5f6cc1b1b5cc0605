/**
 * Issue 38: listings approved while NATS is down still alert every matching member, once, after it is back.
 * houses and notifications in one process on one private nats-server this test stops (never the shared one):
 * houses' outbox holds the `houses.listing.published` events while the broker is away, its relay publishes
 * them when it returns, and notifications' durable consumer stores each alert once (a redelivery, or the
 * relay's re-publication after a crash between publish and removal, finds the alert already there).
 */
import { STREAMS } from '@binzip/events';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, EventBus, startConsumers, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@binzip/shared';
import request from 'supertest';
import { startNatsServer } from '../scripts/lib/nats';
import { housesOutbox } from '../services/houses/src/events';
import { validListing } from '../services/houses/test/helpers';
import { buildApp as housesApp } from '../services/houses/src/service';
import { housesModels, initModels as initHouses, type HousesModels } from '../services/houses/src/models';
import { buildApp as notificationsApp } from '../services/notifications/src/service';
import { notificationsConsumers } from '../services/notifications/src/events';
import { initModels as initNotifications, notificationsModels, type NotificationsModels } from '../services/notifications/src/models';
import { bearer, eventually } from './support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness } from './support/service';

jest.setTimeout(120_000);

const logger = createLogger('alerts-outage', 'silent');
const LISTINGS = 12;

test('listings approved while NATS is down alert each matching member once after it is back', async () => {
  const nats = await startNatsServer({ storeDir: path.join(mkdtempSync(path.join(os.tmpdir(), 'alerts-outage-')), 'nats') });
  let houses: ServiceHarness<HousesModels> | undefined;
  let notifications: ServiceHarness<NotificationsModels> | undefined;
  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  let consumers: RunningConsumer | undefined;
  try {
    houses = await startServiceHarness('alertsoutagehouses', { models: housesModels, initModels: initHouses, buildApp: housesApp });
    notifications = await startServiceHarness('alertsoutagenotif', { models: notificationsModels, initModels: initNotifications, buildApp: notificationsApp });
    bus = await EventBus.connect({ url: nats.uri, prefix: houses.names.natsPrefix, name: 'alerts-outage', logger });
    // Every stream, as each process's start makes them: the approvals' audit entries (AUDIT, which nobody here
    // consumes) are published from the same outbox, ahead of the listing's own events.
    await bus.ensureStreams(STREAMS);
    relay = startOutboxRelay(bus, housesOutbox(houses.models), { logger, intervalMs: 300 });
    consumers = await startConsumers(bus, notificationsConsumers(notifications.ctx, { EVENT_MAX_DELIVER: 50, EVENT_BACKOFF_MS: [300] }));

    const author = await addMember(houses.connection, '주민', { id: 21 });
    const admin = await addAdmin(houses.connection, '관리자', { id: 22 });
    for (const [id, body] of [
      [31, { name: '강원 매매', province: '강원', rentalType: 'SALE' }],
      [32, { name: '아무 데나', alert: true }],
      [33, { name: '경상만', province: '경상' }],
    ] as const) {
      await addMember(notifications.connection, `member${id}`, { id });
      expect(
        (
          await request(notifications.app)
            .post('/api/v1/saved-searches')
            .set('Authorization', bearer({ userId: id }))
            .send(body)
        ).status,
      ).toBe(200);
    }

    const houseIds: number[] = [];
    for (let i = 0; i < LISTINGS; i++) {
      const res = await request(houses.app)
        .post('/api/v1/houses')
        .set('Authorization', author.token)
        .send(validListing({ title: `정전 중 매물 ${i}` }));
      expect(res.status).toBe(200);
      houseIds.push(res.body.data as number);
    }

    await nats.stop();
    for (const houseId of houseIds) {
      const res = await request(houses.app).put(`/api/v1/houses/apply/${houseId}`).set('Authorization', admin.token).send({ approve: true });
      expect(res.status).toBe(200);
    }
    // The events wait in the listings' outbox while the broker is away.
    await relay.kick();
    expect(await houses.models.houses.countDocuments({ _id: { $in: houseIds }, 'pendingEvents.subject': 'houses.listing.published' }).exec()).toBe(LISTINGS);
    expect(await notifications.models.notifications.countDocuments({ kind: 'LISTING_MATCH' }).exec()).toBe(0);

    await nats.restart();
    const alerts = notifications.models.notifications;
    await eventually(async () => (await alerts.countDocuments({ kind: 'LISTING_MATCH' }).exec()) >= LISTINGS * 2, 60_000, 200);
    await eventually(async () => (await houses!.models.houses.countDocuments({ 'pendingEvents.0': { $exists: true } }).exec()) === 0, 20_000, 200);
    // Once each: every listing to both members whose searches it matches, never to the one in another region.
    const decided = await alerts.find({ kind: 'LISTING_MATCH' }).lean().exec();
    expect(decided).toHaveLength(LISTINGS * 2);
    for (const userId of [31, 32])
      expect(
        decided
          .filter((n) => n.recipientId === userId)
          .map((n) => n.targetId)
          .sort(),
      ).toEqual([...houseIds].sort());
    expect(decided.some((n) => n.recipientId === 33)).toBe(false);
    // The authors heard of each approval once too.
    // (another durable consumer: it may finish after the matches did)
    await eventually(async () => (await alerts.countDocuments({ kind: 'LISTING_APPROVED', recipientId: author.id }).exec()) >= LISTINGS, 20_000, 200);
    expect(await alerts.countDocuments({ kind: 'LISTING_APPROVED', recipientId: author.id }).exec()).toBe(LISTINGS);
  } finally {
    await consumers?.stop().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await nats.stop();
    await houses?.close();
    await notifications?.close();
  }
});
