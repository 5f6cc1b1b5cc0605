import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Every process of the system turns V8's allocation-site pretenuring off before its first request
 * (`disableAllocationSitePretenuring`, shared/src/core/lifecycle.ts): once V8 judged a per-request allocation site
 * long-lived, a gateway collected its old generation every second for the rest of its life. V8's own traces (its
 * pretenuring decisions, its young collections) show a site decided "tenure" in a plain process, and none in one
 * that turned it off, over several times the young collections the plain one needed.
 */
jest.setTimeout(120_000);

interface Watched {
  /** Young collections (scavenges) before the first "tenure" decision, or all of them when none came. */
  scavenges: number;
  decided: boolean;
}

/** Runs the fixture until V8 decides to pretenure a site or it has made `scavengeLimit` young collections. */
function watch(asProcessOfTheSystem: boolean, scavengeLimit: number): Promise<Watched> {
  const fixture = path.join(__dirname, 'fixtures', 'long-lived-allocations.ts');
  const args = ['--trace-gc', '--trace-pretenuring-statistics', '--import', 'tsx', fixture];
  if (asProcessOfTheSystem) args.push('--as-a-process-of-the-system');
  const child = spawn(process.execPath, args, { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let scavenges = 0;
    let rest = '';
    const stop = (result: Watched) => {
      child.stdout.removeAllListeners('data');
      child.kill('SIGKILL');
      resolve(result);
    };
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the fixture ended by itself (${code ?? signal})`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (/=> tenure$/.test(line.trim())) return stop({ scavenges, decided: true });
        if (line.includes(' Scavenge ') && ++scavenges >= scavengeLimit) return stop({ scavenges, decided: false });
      }
    });
  });
}

// V8 takes the decision in some processes and never in others (in about six of ten plain runs here, at their 13th
// to 15th young collection; the rest ran a thousand without one), so each side is several processes: a control that
// shows the decision at least once, and processes of the system none of which shows it.
const ATTEMPTS = 10;
const SYSTEM_PROCESSES = 5;

it('allocates no site in the old generation once the process turned pretenuring off', async () => {
  // The control: the same allocations in plain processes are pretenured, so the trace does show the decision.
  let plain: Watched | undefined;
  for (let i = 0; i < ATTEMPTS && !plain?.decided; i++) plain = await watch(false, 100);
  expect(plain?.decided).toBe(true);
  const limit = Math.max(20, 4 * (plain?.scavenges ?? 0));
  for (let i = 0; i < SYSTEM_PROCESSES; i++) expect(await watch(true, limit)).toEqual({ scavenges: limit, decided: false });
});
