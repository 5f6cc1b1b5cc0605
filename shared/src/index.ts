/**
 * Everything a service uses, layer by layer (each also importable on its own: `@binzip/shared/core`, `/store`,
 * `/bus`, `/runtime`; pictures are `@binzip/shared/media`). docs/conventions.md says which layer holds what.
 */
export * from './core';
export * from './store';
export * from './bus';
export * from './runtime';
