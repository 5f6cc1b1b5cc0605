/**
 * `npm run count:structure`: the structure figures of issue 36, counted from the repository as it is (so they can
 * be counted again independently). How each is counted:
 *
 * - **import cycles**: strongly connected components of the production import graph (shared/src, services/*\/src;
 *   type-only imports included; scripts/lib/import-graph.ts). Also `npm run check:cycles`, in `npm run lint`.
 * - **files followed per request path**: every production file reachable through imports from the entry files a
 *   reader starts from for that path (listed in PATHS below: the gateway's forwarder, the runtime's HTTP edge, the
 *   file declaring the operation, and for an event the producer's outbox relay and the consumer's declaration).
 *   Two figures per path: **by name** (compared with the issue's targets) follows each imported name to the file
 *   that declares it, through barrels (scripts/lib/import-graph.ts `nameGraph`: a namespace import, `export *` and
 *   `import('…')` still follow the whole module); **whole barrels** follows an import of a barrel (`@binzip/shared`,
 *   a layer's index.ts) to everything the barrel re-exports, as a reader who opens the barrel does (an upper bound).
 *   Both follow a reached file whole (every import it has), so both are larger than what one operation uses.
 * - **hand-edited files per change kind**: the distinct files named in backticks by the numbered steps of each
 *   checklist in docs/conventions.md ("Add an endpoint", "Add an event consumer", "Add a service"); generated files
 *   (`npm run api:examples`, `client:types`) are not hand-edited and not counted.
 * - **service-name places**: for each service, the files outside services/<name>/ that write its name as a word,
 *   leaving out tests, Markdown, generated files (contracts/, api-client/, api-collection/, package-lock.json) and
 *   build output. A place is one file; `--verbose` lists them.
 * - **shared share**: lines of shared/src against all production lines (shared/src + events/src + services/*\/src;
 *   events/src, the producers' event contracts, counts as production but not as shared).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cycles, importGraph, nameGraph, productionFiles, reachable, ROOT } from './lib/import-graph';

const verbose = process.argv.includes('--verbose');
const SERVICES = readdirSync(join(ROOT, 'services')).filter((name) => name !== 'gateway' && existsSync(join(ROOT, 'services', name, 'src')));

const PATHS: Record<string, string[]> = {
  'anonymous house list (GET /api/v1/houses)': ['services/gateway/src/proxy/forward.ts', 'shared/src/runtime/http.ts', 'services/houses/src/routes/houses.ts'],
  'a comment to its notification': [
    'services/gateway/src/proxy/forward.ts',
    'shared/src/runtime/http.ts',
    'services/community/src/routes/comments.ts',
    'shared/src/bus/outbox.ts',
    'services/notifications/src/events/index.ts',
  ],
  'sign-in (POST /api/v1/users/sign-in)': ['services/gateway/src/proxy/forward.ts', 'shared/src/runtime/http.ts', 'services/accounts/src/routes/users.ts'],
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

function namePlaces(service: string, files: readonly string[]): string[] {
  const word = new RegExp(`\\b${service}\\b`);
  return files.filter((file) => !file.startsWith(`services/${service}/`) && word.test(readFileSync(join(ROOT, file), 'utf8')));
}

const graph = importGraph();
const found = cycles(graph);
console.log(`import cycles: ${found.length}`);
for (const component of found) console.log(`  ${component.join(' -> ')}`);

console.log('\nfiles followed per request path (by name; whole barrels):');
const byName = nameGraph();
for (const [name, entries] of Object.entries(PATHS)) {
  const named = new Set(entries.flatMap((entry) => [...reachable(byName, entry)]));
  const files = new Set(entries.flatMap((entry) => [...reachable(graph, entry)]));
  console.log(`  ${name}: ${named.size}; ${files.size}`);
  if (verbose) for (const file of [...named].sort()) console.log(`    ${file}`);
}

console.log('\nhand-edited files per change kind (docs/conventions.md checklists):');
for (const { title, files } of checklists()) {
  console.log(`  ${title}: ${files.length}`);
  if (verbose) for (const file of files) console.log(`    ${file}`);
}

const candidates = candidateFiles();
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
