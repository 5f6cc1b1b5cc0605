/**
 * `npm run lint:api` (part of `npm run lint`): the merged API document through Redocly's recommended rules and
 * Spectral's `oas` rules (configured in redocly.yaml and .spectral.yaml, where every rule switched off says why).
 * Any problem, error or warning, fails: a warning worth keeping is switched off there with its reason.
 * `--document <file>` lints that file instead of the generated document.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApiDocument } from './lib/openapi';

const ROOT = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

function run(command: string, args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

export function lintApiDocument(file: string): { ok: boolean; report: string } {
  const lines: string[] = [];
  const redocly = run(bin('redocly'), ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json']);
  let totals = { errors: 1, warnings: 0 };
  let problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }> = [];
  try {
    const parsed = JSON.parse(redocly.stdout) as { totals: typeof totals; problems: typeof problems };
    totals = parsed.totals;
    problems = parsed.problems;
  } catch {
    lines.push(`redocly: unreadable output (exit ${redocly.status}): ${redocly.stderr.slice(-2000)}`);
  }
  for (const problem of problems) lines.push(`redocly ${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location?.[0]?.pointer ?? ''})`);
  const spectral = run(bin('spectral'), ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--fail-severity', 'warn', '--format', 'text']);
  if (spectral.status !== 0) lines.push(`spectral: ${spectral.stdout.trim() || spectral.stderr.trim()}`);
  const ok = totals.errors === 0 && totals.warnings === 0 && problems.length === 0 && spectral.status === 0;
  return { ok, report: lines.join('\n') };
}

if (require.main === module) {
  const { values } = parseArgs({ options: { document: { type: 'string' } } });
  let file = values.document ? path.resolve(values.document) : '';
  if (!file) {
    file = path.join(ROOT, '.cache', 'api-lint', 'openapi.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(buildApiDocument(), null, 2)}\n`);
  }
  const { ok, report } = lintApiDocument(file);
  if (!ok) {
    console.error(`API document lint failed:\n${report}`);
    process.exit(1);
  }
  console.log('API document: Redocly recommended and Spectral oas rules pass (0 errors, 0 warnings)');
}
