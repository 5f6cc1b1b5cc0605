/**
 * `npm run release:tag [-- <process>... | --at <commit>]`: tags the current commit (or <commit>) as the release
 * of each process (all six by default) whose `<process>-v<version>` tag does not exist yet, the version being
 * that of services/<process>/package.json (docs/containers.md, "Versions and releases"). Existing tags are never
 * moved. Push them with `git push origin --tags`.
 */
import { RELEASED_PROCESSES, tagReleases } from './lib/release';

const args = process.argv.slice(2);
const at = args.indexOf('--at');
const commit = at >= 0 ? args[at + 1] : 'HEAD';
const names = args.filter((a, i) => a !== '--at' && i !== at + 1);
const unknown = names.filter((n) => !(RELEASED_PROCESSES as readonly string[]).includes(n));
if (unknown.length > 0 || (at >= 0 && !commit)) {
  console.error(`[release] usage: npm run release:tag [-- <${RELEASED_PROCESSES.join('|')}>... ] [--at <commit>]`);
  process.exit(1);
}
try {
  tagReleases(names.length > 0 ? names : RELEASED_PROCESSES, (line) => console.log(`[release] ${line}`), commit);
} catch (err) {
  console.error(`[release] ${(err as Error).message}`);
  process.exit(1);
}
