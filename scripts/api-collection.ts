/**
 * `npm run api:collection`: writes the Bruno collection (`api-collection/`) from the current API document with its
 * recorded examples (scripts/lib/collection.ts). `npm run api:release` writes it too.
 */
import path from 'node:path';
import { COLLECTION_DIR, writeCollection } from './lib/collection';
import { buildApiDocument } from './lib/openapi';

writeCollection(buildApiDocument());
console.log(`wrote ${path.relative(process.cwd(), COLLECTION_DIR)}`);
