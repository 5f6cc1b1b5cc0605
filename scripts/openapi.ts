/**
 * Writes the merged API document (the same one the gateway serves at /openapi.json) to a file, without a
 * running system: `npm run openapi -- --out openapi.json`. `npm run client:types` turns it into TypeScript types.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApiDocument } from './lib/openapi';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'clients/openapi.json' } } });
const out = path.resolve(values.out);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(buildApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
