/** The bus layer: NATS JetStream, events, the outbox and what follows events (`@binzip/shared/bus`). Imports core and store. */
export { EventBus, type EventBusOptions } from './connection';
export { MIB, StreamStorageError, defineStream, distinctStreams, type StreamDefinition, type StreamPurpose, type StreamSettings } from './streams';
export { startConsumers, type RunningConsumer } from './consume';
export { consume, defineEvent, type EventConsumer, type EventData, type EventDefinition, type EventFields, type EventMeta } from './events';
export * from './response-cache';
export { OutboxRelay, addOutbox, startOutboxRelay, type OutboxDeclaration, type OutboxEvent, type OutboxRelayOptions } from './outbox';
export * from './events';
export * from './members';
export * from './revocation-feed';
export * from './dead-letters';
export * from './audit';
