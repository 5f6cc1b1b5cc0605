/** What every use-case receives first, and how a service builds it. */
import type { Logger } from './telemetry';

/**
 * What every use-case in `src/domain/` receives first: `(ctx, caller, input)`. A service extends it when it
 * needs more (accounts adds its keys and senders); nothing else reaches the domain.
 */
export interface ServiceContext<Models> {
  /** The service's models (`<service>Models(connection)`), lower-case keys. */
  models: Models;
  /** The clock; tests move it instead of sleeping. */
  now: () => Date;
  logger: Logger;
  /** Called after a write that stored an outbox event, so the relay publishes it without waiting for its timer. */
  eventsPending: () => void;
}

/** The optional parts of `ServiceAppDeps` a context is built from, with their production defaults. */
export function serviceContext<Models>(models: Models, deps: { logger: Logger; now?: () => Date; eventsPending?: () => void }): ServiceContext<Models> {
  return {
    models,
    logger: deps.logger,
    now: deps.now ?? (() => new Date()),
    eventsPending: deps.eventsPending ?? (() => undefined),
  };
}
