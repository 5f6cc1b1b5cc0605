/**
 * `npm run check:cycles` (in `npm run lint`): the production code's import graph, type-only imports included,
 * has no cycle (issue 36: arrows point one way). Prints each cycle's files and exits 1 when there is one.
 */
import { cycles, importGraph } from './lib/import-graph';

const found = cycles(importGraph());
for (const component of found) console.error(`import cycle:\n  ${component.join('\n  ')}`);
if (found.length > 0) {
  console.error(`${found.length} import cycle(s): make the arrows point one way (docs/conventions.md, "Import direction").`);
  process.exit(1);
}
console.log('no import cycles');
