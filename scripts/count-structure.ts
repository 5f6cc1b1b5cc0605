/**
 * `npm run count:structure`: the structure figures of issue 36, counted from the repository as it is (so they can
 * be counted again independently). How each is counted:
 *
 * - **import cycles**: strongly connected components of the production import graph (shared/src, services/*\/src;
 *   type-only imports included; scripts/lib/import-graph.ts). Also `npm run check:cycles`, in `npm run lint`.
 * - **files followed per request path**: three figures per path, from the entries a reader starts from (PATHS
 *   below: the gateway's `createServiceProxies`, the runtime's `createServiceApp`, the operation's own
 *   `operation({...})` entry, and for an event the producer's `OutboxRelay` and the consumer's `consume(...)` entry).
 *   **By declaration** (compared with the issue's targets; scripts/lib/declaration-graph.ts): every name an entry
 *   uses is followed to the declaration the TypeScript checker resolves it to, and that declaration is read in
 *   turn; the files holding a declaration read are counted (a class is read as far as making one, its methods when
 *   called by name; a function named as a type, `ReturnType<typeof communityModels>`, member by member as an object
 *   type is). Counted this way b9954ad gives 39, 49 and 36 where the issue counted 36, 50 and 35 there.
 *   The two import-graph figures are upper bounds: **by name** follows each imported name to its file and then
 *   that file whole (every import it has; scripts/lib/import-graph.ts `nameGraph`), **whole barrels** also opens
 *   every barrel imported.
 * - **hand-edited files per change kind**: the distinct files named in backticks by the numbered steps of each
 *   checklist in docs/conventions.md ("Add an endpoint", "Add an event consumer", "Add a service"); generated files
 *   (`npm run api:examples`, `client:types`) are not hand-edited and not counted.
 * - **lists of services written by hand**: the files outside services/ that name every service (a list a new
 *   service would have to join), leaving out tests, Markdown, generated files (contracts/, api-client/,
 *   api-collection/, package-lock.json, the gateway's declared access, files written whole by
 *   `npm run services:render`), the regions `services:render` writes, and build output. A new service's name is
 *   written in each of these and in its own folder; `--verbose` lists them.
 * - **service-name places**: for each service, the files outside services/<name>/ that write its name as a word,
 *   with the same files left out (cross-service references included: an event's consumers, the revocation feed's
 *   readers, comments). A place is one file; `--verbose` lists them.
 * - **shared share**: lines of shared/src against all production lines (shared/src + events/src + services/*\/src;
 *   events/src, the producers' event contracts, counts as production but not as shared).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { declarationWalker, type Entry } from './lib/declaration-graph';
import { withoutRendered } from './lib/service-deploy';
import { cycles, importGraph, nameGraph, productionFiles, reachable, ROOT } from './lib/import-graph';

const verbose = process.argv.includes('--verbose');
const SERVICES = readdirSync(join(ROOT, 'services')).filter((name) => name !== 'gateway' && existsSync(join(ROOT, 'services', name, 'src')));

const FORWARDER: Entry = { file: 'services/gateway/src/proxy/forward.ts', name: 'createServiceProxies' };
const EDGE: Entry = { file: 'shared/src/runtime/http.ts', name: 'createServiceApp' };
const PATHS: Record<string, Entry[]> = {
  'anonymous house list (GET /api/v1/houses)': [
    FORWARDER,
    EDGE,
    { file: 'services/houses/src/routes/houses.ts', call: { key: 'operationId', value: 'listHouses' } },
  ],
  'a comment to its notification': [
    FORWARDER,
    EDGE,
    { file: 'services/community/src/routes/comments.ts', call: { key: 'operationId', value: 'createBoardComment' } },
    { file: 'shared/src/bus/outbox.ts', name: 'OutboxRelay' },
    { file: 'services/notifications/src/events/index.ts', call: { key: 'durable', value: 'notifications-board-comments' } },
  ],
  'sign-in (POST /api/v1/users/sign-in)': [FORWARDER, EDGE, { file: 'services/accounts/src/routes/users.ts', call: { key: 'operationId', value: 'signIn' } }],
};

function lines(file: string): number {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').length;
}

/** The files each checklist of docs/conventions.md names in its numbered steps. */
function checklists(): Array<{ title: string; files: string[] }> {
  const text = readFileSync(join(ROOT, 'docs/conventions.md'), 'utf8');
  const found: Array<{ title: string; files: string[] }> = [];
  const sections = text.split(/^#{2,3} /m).slice(1);
  for (const section of sections) {
    const title = section.split('\n')[0];
    if (!/^Add (an|a) /.test(title)) continue;
    const steps = section.split('\n').filter((line) => /^\d+\. /.test(line));
    const files = new Set<string>();
    for (const step of steps) {
      const first = /`([^`]+)`/.exec(step);
      if (first) files.add(first[1]);
    }
    found.push({ title, files: [...files] });
  }
  return found;
}

const SKIP_DIRS = new Set([
  'node_modules',
  'dist',
  '.git',
  '.data',
  '.cache',
  'coverage',
  'test',
  'contracts',
  'api-client',
  'api-collection',
  'test-artifacts',
  'clients',
  'tools',
]);
function candidateFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    const abs = join(ROOT, path);
    if (statSync(abs).isDirectory()) {
      if (name === '.ci' || (!SKIP_DIRS.has(name) && !name.startsWith('.'))) out.push(...candidateFiles(path));
    } else if (!name.endsWith('.md') && !name.endsWith('.test.ts') && name !== 'package-lock.json' && !name.endsWith('.tsbuildinfo')) {
      out.push(path);
    }
  }
  return out;
}

/** A file's hand-written text: nothing for a generated file, and without what `services:render` writes. */
function handWritten(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return text.startsWith('/**\n * Generated by `npm run') ? '' : withoutRendered(file, text);
}

function namePlaces(service: string, files: readonly string[]): string[] {
  const word = new RegExp(`\\b${service}\\b`);
  return files.filter((file) => !file.startsWith(`services/${service}/`) && word.test(handWritten(file)));
}

/** Files outside services/ whose hand-written text names every service: the lists a new service would join. */
function serviceLists(files: readonly string[]): string[] {
  return files
    .filter((file) => !file.startsWith('services/') || file === 'services/gateway/src/proxy/upstreams.ts')
    .filter((file) => {
      const text = handWritten(file);
      return SERVICES.every((service) => new RegExp(`\\b${service}\\b`).test(text));
    });
}

const graph = importGraph();
const found = cycles(graph);
console.log(`import cycles: ${found.length}`);
for (const component of found) console.log(`  ${component.join(' -> ')}`);

console.log('\nfiles followed per request path (by declaration; upper bounds: by name, whole barrels):');
const byName = nameGraph();
const walker = declarationWalker();
for (const [name, entries] of Object.entries(PATHS)) {
  const declared = walker.filesFollowed(entries);
  const entryFiles = [...new Set(entries.map((entry) => entry.file))];
  const named = new Set(entryFiles.flatMap((entry) => [...reachable(byName, entry)]));
  const files = new Set(entryFiles.flatMap((entry) => [...reachable(graph, entry)]));
  console.log(`  ${name}: ${declared.size}; ${named.size}; ${files.size}`);
  if (verbose) for (const file of [...declared].sort()) console.log(`    ${file}`);
}

console.log('\nhand-edited files per change kind (docs/conventions.md checklists):');
for (const { title, files } of checklists()) {
  console.log(`  ${title}: ${files.length}`);
  if (verbose) for (const file of files) console.log(`    ${file}`);
}

const candidates = candidateFiles();
const lists = serviceLists(candidates);
console.log(`\nlists of services written by hand (a new service's name goes into each): ${lists.length}`);
for (const file of lists) console.log(`  ${file}`);

console.log('\nservice-name places (files outside the service that write its name):');
for (const service of SERVICES) {
  const places = namePlaces(service, candidates);
  const own = readdirSync(join(ROOT, 'services', service, 'src'), { recursive: true }).filter((f) => String(f).endsWith('.ts')).length;
  console.log(`  ${service}: ${places.length} places; ${own} files in src/`);
  if (verbose) for (const place of places) console.log(`    ${place}`);
}

const production = productionFiles();
const sharedLines = production.filter((f) => f.startsWith('shared/')).reduce((sum, f) => sum + lines(f), 0);
const allLines = production.reduce((sum, f) => sum + lines(f), 0);
console.log(`\nshared/ share of production lines: ${((100 * sharedLines) / allLines).toFixed(1)} % (${sharedLines} of ${allLines})`);
