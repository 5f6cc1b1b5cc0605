import { createLogger, exitOnStartupFailure, listen, shutdownOn } from '@binzip/shared';
import { buildApp, startHealthProbes } from './app';
import { readConfig } from './config';
import { createPools } from './domain/upstreams';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const pools = createPools({
    accounts: config.ACCOUNTS_URLS,
    community: config.COMMUNITY_URLS,
    houses: config.HOUSES_URLS,
    records: config.RECORDS_URLS,
    notifications: config.NOTIFICATIONS_URLS,
  });
  const stopProbes = startHealthProbes(pools, config.HEALTH_INTERVAL_MS);
  const server = await listen(buildApp({ config, logger, pools }), config.PORT, config.HOST);
  logger.info('listening', { url: `http://${config.HOST}:${config.PORT}` });
  shutdownOn(logger, server, [async () => stopProbes()]);
}

main().catch((err) => exitOnStartupFailure(undefined, err));
