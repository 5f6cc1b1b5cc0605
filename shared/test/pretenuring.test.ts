import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Every process of the system turns V8's allocation-site pretenuring off before its first request
 * (`disableAllocationSitePretenuring`, shared/src/core/lifecycle.ts): once V8 judged a per-request allocation site
 * long-lived, a gateway collected its old generation every second for the rest of its life. V8's own trace of its
 * pretenuring decisions shows a site decided "tenure" in a plain process and none in one that turned it off.
 */
jest.setTimeout(30_000);

async function tenureDecisions(asProcessOfTheSystem: boolean): Promise<number> {
  const fixture = path.join(__dirname, 'fixtures', 'long-lived-allocations.ts');
  const args = ['--trace-pretenuring-statistics', '--import', 'tsx', fixture, ...(asProcessOfTheSystem ? ['--as-a-process-of-the-system'] : [])];
  const child = spawn(process.execPath, args, { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return output.split('\n').filter((line) => /=> tenure$/.test(line.trim())).length;
}

it('allocates no site in the old generation once the process turned pretenuring off', async () => {
  // The control: the same allocations in a plain process are pretenured, so the trace does show the decision.
  expect(await tenureDecisions(false)).toBeGreaterThan(0);
  expect(await tenureDecisions(true)).toBe(0);
});
