import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountsStream, EventBus, OutboxRelay, consume, createLogger, userSnapshots, type RunningConsumer, type UserSnapshotV1 } from '@binzip/shared';
import request from 'supertest';
import { startNatsServer } from '../../../scripts/lib/nats';
import { eventually } from '../../../test/support';
import { createAdministrator } from '../src/domain/sign-up';
import { signedIn, startAccountsHarness, userBody, verifyContacts, type AccountsHarness } from './helpers';

const logger = createLogger('accounts-outbox-test', 'silent');

async function collect(bus: EventBus, durable: string): Promise<{ events: UserSnapshotV1[]; consumer: RunningConsumer }> {
  const events: UserSnapshotV1[] = [];
  const consumer = await bus.consume(
    consume(userSnapshots, {
      durable,
      handle: async (event) => {
        events.push(event);
      },
    }),
  );
  return { events, consumer };
}

describe('user snapshot events through the outbox', () => {
  let h: AccountsHarness;
  let bus: EventBus;
  let relay: OutboxRelay;

  beforeAll(async () => {
    let kick = () => undefined as unknown;
    h = await startAccountsHarness('acctoutbox', { eventsPending: () => kick() });
    bus = await h.bus();
    await bus.ensureStream(accountsStream);
    relay = new OutboxRelay({ bus, models: [h.models.users], logger, intervalMs: 60_000 });
    kick = () => relay.kick();
  });
  afterAll(async () => {
    await relay.stop();
    await h.close();
  });

  it('publishes accounts.user.<id> on sign-up, nickname change and withdrawal with growing versions', async () => {
    const { events, consumer } = await collect(bus, 'sink-main');
    try {
      const { bearer, body } = await signedIn(h.app);
      const id = (await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.id as number;
      const mine = () => events.filter((e) => e.id === id);
      await eventually(() => mine().length === 1);
      expect(mine()[0]).toMatchObject({
        v: 1,
        id,
        userName: body.userName,
        nick_name: body.nick_name,
        userType: 'NONE',
        authority: 'USER',
        status: 'ACTIVE',
        version: 1,
      });

      await request(h.app)
        .put('/api/v1/users/update/nick-name')
        .set('Authorization', bearer)
        .send({ nick_name: `새이름${id}` })
        .expect(200);
      await eventually(() => mine().length === 2);
      expect(mine()[1]).toMatchObject({ nick_name: `새이름${id}`, version: 2, status: 'ACTIVE' });

      await request(h.app)
        .post('/api/v1/users/withdrawal')
        .set('Authorization', bearer)
        .send({ reason: ['기타'], content: 'bye' })
        .expect(200);
      await eventually(() => mine().length === 3);
      expect(mine()[2]).toMatchObject({ nick_name: `새이름${id}`, version: 3, status: 'WITHDRAWAL_REQUESTED' });
      expect(new Set(mine().map((e) => e.eventId)).size).toBe(3);

      // Changes outside the snapshot (password) publish nothing and leave nothing pending.
      await request(h.app).put('/api/v1/users/update/password').set('Authorization', bearer).send({ password: 'An0ther!!' }).expect(200);
      const stored = await h.ctx.models.users.findById(id).lean().exec();
      expect(stored?.pendingEvents).toEqual([]);
      expect(stored?.version).toBe(3);
    } finally {
      await consumer.stop();
    }
  });

  it('publishes agents and administrators with their type and authority', async () => {
    const { events, consumer } = await collect(bus, 'sink-kinds');
    try {
      const admin = await createAdministrator(h.ctx, { ...pick(userBody(), ['userName', 'password', 'nick_name', 'phone_num', 'email']), userType: 'SERVER' });
      await relay.kick();
      await eventually(() => events.some((e) => e.id === admin.id));
      expect(events.find((e) => e.id === admin.id)).toMatchObject({ authority: 'ADMIN', userType: 'SERVER', version: 1 });
    } finally {
      await consumer.stop();
    }
  });
});

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, source[k]]));
}

describe('NATS unreachable at write time', () => {
  it('keeps the event in the user document and publishes it once NATS is back', async () => {
    const storeDir = mkdtempSync(path.join(os.tmpdir(), 'accounts-nats-'));
    const nats = await startNatsServer({ storeDir });
    let relay: OutboxRelay | undefined;
    let kick = () => undefined as unknown;
    const h = await startAccountsHarness('acctoutage', { eventsPending: () => kick() });
    const bus = await EventBus.connect({ url: nats.uri, prefix: h.names.natsPrefix, name: 'accounts-outage-test', logger });
    try {
      await bus.ensureStream(accountsStream);
      relay = new OutboxRelay({ bus, models: [h.models.users], logger, intervalMs: 300 });
      kick = () => relay?.kick();
      relay.start();

      await nats.stop();
      const body = userBody();
      await verifyContacts(h.app, body);
      await request(h.app).post('/api/v1/users/sign-up').send(body).expect(200);
      const user = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
      expect(user?.pendingEvents).toHaveLength(1);

      await nats.restart();
      // A round trip succeeds only once the client has reconnected.
      await eventually(
        () =>
          bus.connection.flush().then(
            () => true,
            () => false,
          ),
        20_000,
        200,
      );
      const { events, consumer } = await eventually(() => collect(bus, 'sink-outage').catch(() => undefined), 20_000, 200);
      try {
        await eventually(() => events.some((e) => e.id === user!._id), 20_000, 100);
        expect(events.find((e) => e.id === user!._id)).toMatchObject({ userName: body.userName, version: 1, eventId: user!.pendingEvents[0].id });
        await eventually(async () => ((await h.ctx.models.users.findById(user!._id).lean().exec())?.pendingEvents.length ?? 1) === 0, 10_000);
      } finally {
        await consumer.stop();
      }
    } finally {
      await relay?.stop();
      await bus.close();
      await nats.stop();
      await h.close();
      rmSync(storeDir, { recursive: true, force: true });
    }
  }, 60_000);
});
