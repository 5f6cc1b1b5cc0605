/**
 * `tsx scripts/built.ts shared services/accounts …`: builds those TypeScript projects (`tsc -b`) only when their
 * built code is missing or older than their sources, so a script that needs the built library (`npm run
 * admin:create`) starts at once when `npm start` or `npx tsc -b` already built it. Prints what it decided.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

function newest(target: string): number {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(target).reduce((latest, entry) => Math.max(latest, newest(path.join(target, entry))), stat.mtimeMs);
}

/** The project's build record (`tsconfig.tsbuildinfo`, rewritten by every `tsc -b` of it) is newer than its inputs. */
export function builtIsCurrent(project: string): boolean {
  const dir = path.join(ROOT, project);
  const built = newest(path.join(dir, 'tsconfig.tsbuildinfo'));
  const sources = Math.max(newest(path.join(dir, 'src')), newest(path.join(dir, 'tsconfig.json')), newest(path.join(ROOT, 'tsconfig.base.json')));
  return built > 0 && newest(path.join(dir, 'dist')) > 0 && built >= sources;
}

const stale = process.argv.slice(2).filter((project) => !builtIsCurrent(project));
if (stale.length === 0) {
  console.error(`built code is current (${process.argv.slice(2).join(', ')}): no build`);
} else {
  console.error(`building ${stale.join(', ')} (sources newer than the built code) ...`);
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', ...stale], { cwd: ROOT, stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
