/**
 * Issue 34: every stream that can error has a listener, as a rule of the whole code base. `a.pipe(b)` listens for
 * the errors of neither stream (busboy's destroyed file stream ended community for one member's upload), so the
 * lint rule binzip/no-bare-pipe (eslint-rules/streams.mjs) refuses it in production code. Checked here: that the
 * rule reports each bare pipe on a stream and nothing else (zod's `.pipe`, `pipeline`, listeners of one's own),
 * and that the project's configuration turns it on for every service's sources and the shared library's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const eslintBin = path.join(root, 'node_modules/eslint/bin/eslint.js');
const fixtures = path.join(__dirname, 'fixtures/lint');

interface LintMessage {
  ruleId: string | null;
  line: number;
  message: string;
}

function run(args: string[], cwd: string): string {
  try {
    return execFileSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // eslint exits 1 when it reports problems: its output is still the answer.
    const failed = err as { status?: number; stdout?: string; stderr?: string };
    if (failed.status === 1 && failed.stdout) return failed.stdout;
    throw new Error(`eslint failed (${failed.status}): ${failed.stderr ?? ''}`, { cause: err });
  }
}

test('binzip/no-bare-pipe reports every .pipe() on a stream and nothing else', () => {
  const output = run([eslintBin, '-c', 'eslint.config.mjs', '-f', 'json', 'streams.ts'], fixtures);
  const [result] = JSON.parse(output) as Array<{ messages: LintMessage[] }>;
  const reported = [...new Set(result.messages.map((m) => `${m.ruleId}:${m.line}`))];

  const expected = readFileSync(path.join(fixtures, 'streams.ts'), 'utf8')
    .split('\n')
    .flatMap((line, index) => (line.endsWith('// reported') ? [`binzip/no-bare-pipe:${index + 1}`] : []));
  expect(expected).toHaveLength(4);
  expect(reported).toEqual(expected);
  expect(result.messages[0].message).toContain('pipeline');
}, 120_000);

test("the project's configuration applies the rule to every service's sources and the shared library's", () => {
  const services = ['accounts', 'community', 'gateway', 'houses', 'notifications', 'records'];
  const files = [...services.map((service) => `services/${service}/src/any.ts`), 'shared/src/media/any.ts', 'shared/src/core/any.ts'];
  // One process for all (the configuration is an ES module, loaded by eslint itself).
  const script = `
    import { ESLint } from 'eslint';
    const eslint = new ESLint({ cwd: ${JSON.stringify(root)} });
    const files = ${JSON.stringify(files)};
    const rules = [];
    for (const file of files) rules.push((await eslint.calculateConfigForFile(file))?.rules?.['binzip/no-bare-pipe'] ?? null);
    console.log(JSON.stringify(rules));`;
  const output = run(['--input-type=module', '-e', script], root);
  const severities = (JSON.parse(output) as Array<unknown[] | null>).map((rule) => rule?.[0]);
  expect(severities).toEqual(files.map(() => 2));
}, 120_000);
