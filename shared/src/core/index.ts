/**
 * The core layer: what every process needs, the gateway included, and nothing that talks to a store or the
 * broker (`@binzip/shared/core`). Layers import only downward: core <- store <- bus <- runtime (lint-checked).
 */
export * from './wire';
export * from './telemetry';
export * from './operations';
export * from './auth';
export * from './edge';
export * from './config';
export * from './lifecycle';
export * from './deprecation';
export * from './openapi';
export * from './api-examples';
/** The metric classes of the prom-client copy that holds `metricsRegistry`, for a process's own metrics. */
export { Counter, Histogram } from 'prom-client';
