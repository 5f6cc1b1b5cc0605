/**
 * `npm run api:compat`: the compatibility gates (also run by `npm test`, test/infra/api-compat.test.ts).
 * Exits 1 and names every breaking change of the API document or an event contract since the last release.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { breakingChangesSinceRelease, RELEASE_DIR } from './lib/compat';

// `--release <dir>`: compare with another release folder (the tests use a doctored copy).
const { values } = parseArgs({ options: { release: { type: 'string' } } });
const { api, events } = breakingChangesSinceRelease(values.release ? path.resolve(values.release) : RELEASE_DIR);
for (const [what, problems] of [
  ['API document', api],
  ['event contracts', events],
] as const) {
  if (problems.length === 0) console.log(`${what}: compatible with the last release`);
  else console.error(`${what}: ${problems.length} breaking change(s) since the last release:\n- ${problems.join('\n- ')}`);
}
if (api.length + events.length > 0) {
  console.error('A deliberate break needs a new version, a CHANGELOG.md line and `npm run api:release` (docs/versioning.md).');
  process.exit(1);
}
