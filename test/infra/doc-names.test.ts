/**
 * Issue 36: no doc names a file or a function that does not exist. Every name in backticks in docs/*.md and
 * README.md that looks like a repository file path must exist (at the root, or inside a service when it starts
 * with `src/` or `test/`), and every name written as a call (`defineEvent(...)`, `runService(service)`) must be
 * declared somewhere in the code. Placeholders (`<service>`, `*`, `{id}`) are not checked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productionFiles, ROOT, sourceFiles } from '../../scripts/lib/import-graph';

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const services = readdirSync(join(ROOT, 'services'));

function backticked(text: string): string[] {
  // Inline code only: fenced blocks are examples, not names.
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
}

const PATH = /^(?:\.\/)?((?:[\w.-]+\/)+[\w.-]+\.(?:ts|mjs|js|json|ya?ml|md|java|xml|sh))$/;
const TOP = /^(services|shared|scripts|test|docs|deploy|tools|contracts|api-client|admin-console|src|\.ci)\//;

function pathExists(path: string): boolean {
  if (existsSync(join(ROOT, path))) return true;
  return services.some((service) => existsSync(join(ROOT, 'services', service, path)));
}

let declaredNames: Set<string> | undefined;
function declared(): Set<string> {
  if (declaredNames) return declaredNames;
  const files = [...productionFiles(), ...sourceFiles('scripts'), ...sourceFiles('test/support'), ...sourceFiles('api-client/src')];
  const names = new Set<string>();
  const declaration = /(?:function\s+|const\s+|let\s+|class\s+|^\s+(?:async\s+)?)([A-Za-z_$][\w$]*)\s*[(=<:]/gm;
  for (const file of files) for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(declaration)) names.add(match[1]);
  declaredNames = names;
  return names;
}

const CALL = /^(?:[\w$]+\.)*([A-Za-z_$][\w$]*)\(.*\)$/;
// Names of things outside this repository's code that docs write as calls.
const FOREIGN = new Set([
  'lean',
  'createPrivateKey',
  'startSession',
  'withTransaction',
  'startTransaction',
  'findOneAndUpdate',
  'init',
  'insertMany',
  'requestResolvedSubtree',
  'require',
  'import',
  'fetch',
  'setTimeout',
  'setInterval',
  'version',
  'ismaster',
  'z',
  'res',
  'app',
  'express',
  'connect',
]);

describe('names in the docs exist', () => {
  test.each(docs)('%s', (doc) => {
    const missing: string[] = [];
    for (const name of backticked(readFileSync(join(ROOT, doc), 'utf8'))) {
      const path = PATH.exec(name);
      if (path && TOP.test(path[1]) && !/[<>*{}]/.test(name)) {
        if (!pathExists(path[1])) missing.push(`file ${name}`);
        continue;
      }
      // A bare name of the project's vocabulary of functions (`defineEvent`, `runService`) is checked like a call.
      const bare = /^(?:define|run|start|build|create|mount|register|follow|consume|with)[A-Z]\w*$/.test(name) ? [name, name] : null;
      const call = CALL.exec(name) ?? bare;
      if (call && !FOREIGN.has(call[1]) && !/[<>]/.test(call[1]) && !declared().has(call[1])) missing.push(`function ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
