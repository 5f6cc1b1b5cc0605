import { createLogger } from '@binzip/shared/dist/lite';
import { readConfig } from './config';
import { buildGateway, listenGateway, startUpstreamUpkeep } from './gateway';
import { exitOnStartupFailure, shutdownOn } from './lifecycle';
import { refreshPools, systemResolver } from './domain/upstreams';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const gateway = buildGateway({ config, logger });
  // Host names (compose service names) are resolved before the first request, then kept current.
  await refreshPools(gateway.pools, systemResolver);
  const stopUpkeep = startUpstreamUpkeep(gateway.pools, config.HEALTH_INTERVAL_MS);
  const server = await listenGateway(gateway, config.PORT, config.HOST);
  logger.info('listening', { url: `http://${config.HOST}:${config.PORT}` });
  shutdownOn(logger, server, [async () => stopUpkeep()]);
}

main().catch((err) => exitOnStartupFailure(undefined, err));
