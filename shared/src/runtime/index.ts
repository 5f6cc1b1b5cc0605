/** The service runtime: the app factory, `runService`, readiness (`@binzip/shared/runtime`). Imports every layer below. */
export * from './http';
export * from './service';
export * from './declaration';
export * from './readiness';
export * from './watchdog';
