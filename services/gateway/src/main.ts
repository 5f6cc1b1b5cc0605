import { createLogger, exitOnFatalErrors, exitOnStartupFailure, shutdownOn, startTracing, type Logger, type Shutdown } from '@binzip/shared/core';
import { readConfig } from './config';
import { buildGateway, listenGateway, startUpstreamUpkeep } from './gateway';
import { refreshPools, systemResolver } from './proxy/upstreams';

let logger: Logger | undefined;
let shutdown: Shutdown | undefined;
// An error nobody handled is logged with its request id and ends the gateway in order, like the services.
exitOnFatalErrors(
  () => logger,
  () => shutdown,
);

async function main(): Promise<void> {
  // First, so proxied requests carry `traceparent` (off without OTEL_EXPORTER_OTLP_ENDPOINT).
  const tracing = startTracing('gateway');
  const config = readConfig();
  logger = createLogger('gateway', config.LOG_LEVEL);
  let draining = false;
  const gateway = buildGateway({ config, logger, draining: () => draining });
  // Host names (compose service names) are resolved before the first request, then kept current.
  await refreshPools(gateway.pools, systemResolver);
  const stopUpkeep = startUpstreamUpkeep(gateway.pools, config.HEALTH_INTERVAL_MS);
  const server = await listenGateway(gateway, config.PORT, config.HOST);
  logger.info('listening', { url: `http://${config.HOST}:${config.PORT}` });
  shutdown = shutdownOn(logger, server, [async () => stopUpkeep(), () => tracing.stop()], {
    drainMs: config.SHUTDOWN_DRAIN_MS,
    onDrain: () => (draining = true),
  });
}

main().catch((err) => exitOnStartupFailure(logger, err));
