/**
 * `npm run api:examples`: records the API document's examples from real answers. Runs the end-to-end tests with
 * `RECORD_API_EXAMPLES` set (test/support/api-examples.ts), picks one example per operation, status and code,
 * and writes `contracts/examples/<service>.json`, which the document attaches by operationId.
 *
 * `npm run api:examples -- test/e2e/some.e2e.test.ts ...` runs only those files and replaces only the examples they
 * recorded, keeping the rest. Nothing is written when a test fails. Build first (`npx tsc -b`): the e2e tests run
 * the built services.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readApiExamples, type ApiExamples } from '@binzip/shared';
import { chooseExamples, EXAMPLES_DIR, type RecordedAnswer } from '../test/support/api-examples';
import { SERVICE_DOCUMENTS } from './lib/openapi';

const ROOT = path.resolve(__dirname, '..');
const only = process.argv.slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'api-examples-'));
try {
  const jest = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'jest'), only.length > 0 ? only : ['test/e2e'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, RECORD_API_EXAMPLES: dir },
  });
  if (jest.status !== 0) {
    console.error('api:examples: the end-to-end tests failed; no examples written');
    process.exit(1);
  }
  const answers = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(path.join(dir, name), 'utf8').trim().split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as RecordedAnswer);
  const recorded = chooseExamples(answers);

  const examples: ApiExamples = only.length > 0 ? readApiExamples(EXAMPLES_DIR) : {};
  for (const [operationId, operation] of Object.entries(recorded)) {
    const kept = examples[operationId];
    const responses = { ...kept?.responses };
    for (const [status, byCode] of Object.entries(operation.responses)) responses[status] = { ...responses[status], ...byCode };
    const request = operation.responses['200'] ? operation.request : kept?.request;
    examples[operationId] = { ...(request ? { request } : {}), responses: sortedResponses(responses) };
  }

  mkdirSync(EXAMPLES_DIR, { recursive: true });
  for (const [service, document] of Object.entries(SERVICE_DOCUMENTS)) {
    const ids = operationIds(document()).sort();
    const own = Object.fromEntries(ids.filter((id) => examples[id]).map((id) => [id, examples[id]]));
    writeFileSync(path.join(EXAMPLES_DIR, `${service}.json`), `${JSON.stringify(own, null, 2)}\n`);
    console.log(`contracts/examples/${service}.json: ${Object.keys(own).length} of ${ids.length} operations`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function sortedResponses(responses: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.keys(responses)
      .sort()
      .map((status) => [
        status,
        Object.fromEntries(
          Object.keys(responses[status])
            .sort()
            .map((code) => [code, responses[status][code]]),
        ),
      ]),
  );
}

function operationIds(document: ReturnType<(typeof SERVICE_DOCUMENTS)[string]>): string[] {
  return Object.values((document.paths ?? {}) as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
    Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])),
  );
}
