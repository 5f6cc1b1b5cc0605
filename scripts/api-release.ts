/**
 * `npm run api:release`: records the current API document and event JSON Schemas as the last release
 * (`contracts/released/`), the base the compatibility gates compare with, and regenerates the Bruno collection
 * from that document (`api-collection/`). Run it when a release ships, and after a deliberate breaking change has
 * its new version and its CHANGELOG.md line (docs/versioning.md).
 */
import path from 'node:path';
import { COLLECTION_DIR, writeCollection } from './lib/collection';
import { breakingChangesSinceRelease, currentEventSchemas, RELEASE_DIR, writeRelease } from './lib/compat';
import { buildApiDocument } from './lib/openapi';

let previous: { api: string[]; events: string[] } | undefined;
try {
  previous = breakingChangesSinceRelease();
} catch {
  previous = undefined; // no release yet
}
const document = buildApiDocument();
writeRelease({ document, events: currentEventSchemas() });
// The Bruno collection follows the released document.
writeCollection(document);
const accepted = [...(previous?.api ?? []), ...(previous?.events ?? [])];
console.log(`wrote ${path.relative(process.cwd(), RELEASE_DIR)} and ${path.relative(process.cwd(), COLLECTION_DIR)}`);
if (accepted.length > 0) {
  console.log(`accepted ${accepted.length} breaking change(s); each needs its line in CHANGELOG.md:\n- ${accepted.join('\n- ')}`);
}
