import type { EventDefinition, StreamDefinition } from '@binzip/shared';
import { RUNTIME_STREAMS, adminActionRecorded, distinctStreams, sessionsRevoked, userSnapshots } from '@binzip/shared';
import type { z } from 'zod';
import { communityCommentCreated } from './community';
import { houseListingChanged, houseListingDecided, houseListingPublished, houseReportCreated } from './houses';
import { recordCommentCreated } from './records';

/**
 * The event contracts, one module per producer (`./community`, `./records`, `./houses`): a consumer imports the
 * definitions it follows from here without importing the producer's code, and the producer stores them in its
 * outbox. The runtime's own events (user snapshots, session revocations, audit entries) are defined in
 * @binzip/shared, beside the mechanism that follows them.
 */
export * from './community';
export * from './houses';
export * from './records';

/**
 * Every event of the system, one entry per subject and version. The release snapshot keeps their JSON Schemas
 * (`contracts/released/events/`, `npm run api:release`) and the compatibility gate checks the current ones
 * against it: an event another service reads must not change under the same version. A new version is a new
 * definition here (the old one stays until its consumers have moved).
 */
export const EVENTS: readonly EventDefinition[] = [
  userSnapshots,
  communityCommentCreated,
  recordCommentCreated,
  houseReportCreated,
  sessionsRevoked,
  adminActionRecorded,
  houseListingPublished,
  houseListingDecided,
  houseListingChanged,
];

/**
 * Every stream of the system: the runtime's own and each event's. Each process ensures only those it uses; this
 * whole list is for what looks at the system from outside (tests, operators' tools).
 */
export const STREAMS: readonly StreamDefinition[] = distinctStreams([...RUNTIME_STREAMS, ...EVENTS.map((event) => event.stream)]);

/** One event contract: what a producer publishes under `subject` at version `v`, as consumers parse it. */
export interface EventContract {
  /** File-safe name of the subject (`accounts.user` for `accounts.user.<id>`). */
  name: string;
  subject: string;
  v: number;
  schema: z.ZodType;
}

export const EVENT_CONTRACTS: readonly EventContract[] = EVENTS.map((event) => ({
  name: event.name,
  subject: event.subject,
  v: event.version,
  schema: event.schema,
}));
