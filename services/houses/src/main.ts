import { runService, startOutboxRelay } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { ensureIndexes, houseModels } from './models';

// Author nicknames and types come from the shared projection of accounts' users (one durable consumer for all
// instances, so each snapshot is applied once).
runService({
  name: 'houses',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = houseModels(connection);
    await ensureIndexes(models);
    // Reports carry their `houses.report.created` event (the outbox); accounts keeps the authors' report counts.
    const relay = await startOutboxRelay({ stream: 'HOUSES', bus, models: [models.reports], logger, intervalMs: config.OUTBOX_INTERVAL_MS });
    const app = buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY, eventsPending: () => void relay.kick() });
    return { app, closers: [() => relay.stop()] };
  },
});
