/** The store layer: MongoDB through mongoose (`@binzip/shared/store`). Imports only the core. */
export * from './mongo';
export * from './retry';
export * from './content';
