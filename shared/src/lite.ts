/**
 * The parts of the shared library a process without stores needs (the gateway), importable on their own as
 * `@binzip/shared/dist/lite`: errors, envelopes, request context, logger, tokens, config, metrics and the API
 * document merge — without loading mongoose, nats or the service runtime that `@binzip/shared` (the index)
 * pulls in with every import. Only re-exports: each name is the index's own (same classes, same registry).
 */
export * from './errors';
export * from './edge';
export * from './envelope';
export * from './context';
export * from './logger';
export * from './tracing';
export * from './auth';
export * from './jwks';
export * from './config';
export * from './metrics';
export * from './lifecycle';
export { mergeApiDocuments, type ApiDocument } from './openapi';
/** The metric classes of the prom-client copy that holds `metricsRegistry`, for a process's own metrics. */
export { Counter, Histogram } from 'prom-client';
export { attachApiExamples, readApiExamples, type ApiExamples, type OperationExamples } from './api-examples';
