import {
  createLogger,
  disableAllocationSitePretenuring,
  exitOnFatalErrors,
  exitOnStartupFailure,
  shutdownOn,
  startTracing,
  tellLauncherListening,
  type Logger,
  type Shutdown,
} from '@binzip/shared/core';
import { connectForAnnouncements } from '@binzip/shared/response-cache';
import { readConfig } from './config';
import { buildGateway, listenGateway, startUpstreamUpkeep } from './gateway';
import { refreshPools, systemResolver } from './proxy/upstreams';

disableAllocationSitePretenuring();
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
  const log = createLogger('gateway', config.LOG_LEVEL);
  logger = log;
  let draining = false;
  const gateway = buildGateway({ config, logger, draining: () => draining });
  // Host names (compose service names) are resolved before the first request, then kept current.
  await refreshPools(gateway.pools, systemResolver);
  const stopUpkeep = startUpstreamUpkeep(gateway.pools, config.HEALTH_INTERVAL_MS);
  const server = await listenGateway(gateway, config.PORT, config.HOST);
  logger.info('listening', { url: `http://${config.HOST}:${config.PORT}` });
  tellLauncherListening(server);
  // The services' announcements, once NATS answers (it keeps trying meanwhile; until then nothing is kept here).
  let announcements: Awaited<ReturnType<typeof connectForAnnouncements>> | undefined;
  const natsUrl = config.NATS_URL;
  if (natsUrl !== undefined) {
    void connectForAnnouncements({ url: natsUrl, prefix: config.NATS_PREFIX, name: 'gateway' })
      .then((host) => {
        announcements = host;
        gateway.hearAnnouncements(host);
        log.info("keeping the services' offered answers", { nats: natsUrl });
      })
      .catch((err: unknown) => log.warn('no NATS: every request goes to the services', { error: err instanceof Error ? err.message : String(err) }));
  }
  const stopHearing = async () => {
    gateway.stopHearing();
    await announcements?.close();
  };
  shutdown = shutdownOn(logger, server, [async () => stopUpkeep(), stopHearing, () => tracing.stop()], {
    drainMs: config.SHUTDOWN_DRAIN_MS,
    onDrain: () => (draining = true),
  });
}

main().catch((err) => exitOnStartupFailure(logger, err));
