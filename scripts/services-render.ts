/**
 * `npm run services:render`: writes the deployment files' per-service parts from the one list of services
 * (`SERVICE_PORTS`) and each service's `deploy.yaml` (scripts/lib/service-deploy.ts). `-- --check` only says
 * which files are out of step, and fails if any is (test/deploy/service-list.test.ts does the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderedDeployFiles } from './lib/service-deploy';

const ROOT = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, content] of renderedDeployFiles()) {
  if (readFileSync(path.join(ROOT, file), 'utf8') === content) continue;
  stale += 1;
  if (check) console.error(`services:render: ${file} is out of step (npm run services:render)`);
  else {
    writeFileSync(path.join(ROOT, file), content);
    console.log(`services:render: wrote ${file}`);
  }
}
if (check && stale > 0) process.exit(1);
if (stale === 0) console.log('services:render: every file in step');
