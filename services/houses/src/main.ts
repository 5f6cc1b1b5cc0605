import { runService } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { sanitizeStoredListings } from './domain/listings';
import { ensureIndexes, houseModels } from './models';

// Author nicknames and types come from the shared projection of accounts' users (one durable consumer for all
// instances, so each snapshot is applied once).
runService({
  name: 'houses',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection }) => {
    const models = houseModels(connection);
    await ensureIndexes(models);
    await sanitizeStoredListings(models, logger);
    return { app: buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY }) };
  },
});
