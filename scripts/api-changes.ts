/**
 * `npm run api:changes [-- --before <document.json>]`: every change of the merged API document since the last
 * release (contracts/released), or since the document in a file (e.g. one `npm run openapi -- --out` wrote before a
 * refactoring), one line each. Unlike `api:compat` it lists compatible changes too; it never fails.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ApiDocument } from '@binzip/shared';
import { apiChanges, readRelease } from './lib/compat';
import { buildApiDocument } from './lib/openapi';

// `--annotations`: list the wording and example changes too (counted otherwise).
const { values } = parseArgs({ options: { before: { type: 'string' }, annotations: { type: 'boolean', default: false } } });
const before = values.before ? (JSON.parse(readFileSync(values.before, 'utf8')) as ApiDocument) : readRelease().document;
const all = apiChanges(before, buildApiDocument());
const changes = values.annotations ? all : all.filter((line) => !line.startsWith('annotation:'));
console.log(changes.length === 0 ? 'no change beyond annotations' : changes.join('\n'));
if (!values.annotations) console.log(`(${all.length - changes.length} annotation changes: wording and examples; --annotations lists them)`);
