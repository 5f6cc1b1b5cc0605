/**
 * Versions and releases of the six processes (docs/containers.md, "Versions and releases"). One source of truth per
 * process: the `version` of services/<name>/package.json. /health answers it (shared/src/core/config.ts), the image
 * build writes it into the OCI label `org.opencontainers.image.version`, and a release of a process is the git tag
 * `<name>-v<version>` (for example `houses-v0.2.0`) on the commit it was built from (`npm run release:tag`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SERVICE_NAMES } from '../../services/gateway/src/proxy/upstreams';
import { REPO_ROOT } from './system';

/** The gateway and every service of the one list (`SERVICE_PORTS`). */
export const RELEASED_PROCESSES = ['gateway', ...SERVICE_NAMES] as const;

/** The version of services/<name>/package.json in a source tree (this repository's by default). */
export function serviceVersion(name: string, root = REPO_ROOT): string {
  const file = path.join(root, 'services', name, 'package.json');
  const version = (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`${file}: "version" is not a semantic version`);
  return version;
}

export function releaseTag(name: string, version: string): string {
  return `${name}-v${version}`;
}

function git(args: string[]): { code: number; out: string; err: string } {
  const res = spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: res.status ?? -1, out: (res.stdout ?? '').trim(), err: (res.stderr ?? '').trim() };
}

export interface Release {
  name: string;
  version: string;
  tag: string;
  commit: string;
}

/** Every tagged release of a process, newest version first. */
export function releases(name: string): Release[] {
  const tags = git(['tag', '--list', `${name}-v*`, '--sort=-v:refname'])
    .out.split('\n')
    .filter(Boolean);
  return tags.map((tag) => ({ name, tag, version: tag.slice(name.length + 2), commit: git(['rev-list', '-n', '1', tag]).out }));
}

/** The newest tagged release of a process whose version is not the working tree's: what an upgrade starts from. */
export function previousRelease(name: string): Release | undefined {
  const current = serviceVersion(name);
  return releases(name).find((r) => r.version !== current);
}

/** The source tree of a commit, exported (git archive) into `dir`: what its images are built from. */
export function exportCommit(commit: string, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const archive = spawnSync('sh', ['-c', `git archive --format=tar "$0" | tar -x -C "$1"`, commit, dir], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
}

/**
 * Tags the current commit as the release of each process whose `<name>-v<version>` tag does not exist yet.
 * A tag that exists stays (a released version is never moved): bump the version in the package.json to release again.
 */
export function tagReleases(names: readonly string[], log: (line: string) => void, commit = 'HEAD'): string[] {
  const created: string[] = [];
  const sha = git(['rev-parse', '--verify', `${commit}^{commit}`]);
  if (sha.code !== 0) throw new Error(`no commit ${commit}`);
  for (const name of names) {
    // The version of the commit tagged, not the working tree's.
    const manifest = git(['show', `${sha.out}:services/${name}/package.json`]);
    if (manifest.code !== 0) throw new Error(`services/${name}/package.json is not in ${commit}`);
    const version = (JSON.parse(manifest.out) as { version: string }).version;
    const tag = releaseTag(name, version);
    const existing = git(['rev-list', '-n', '1', tag]);
    if (existing.code === 0 && existing.out) {
      log(`${tag} exists (${existing.out.slice(0, 9)})${existing.out === sha.out ? '' : ': bump services/' + name + '/package.json to release this commit'}`);
      continue;
    }
    const res = git(['tag', '-a', tag, '-m', `${name} ${version}`, sha.out]);
    if (res.code !== 0) throw new Error(`git tag ${tag}: ${res.err}`);
    log(`tagged ${tag} at ${sha.out.slice(0, 9)}`);
    created.push(tag);
  }
  return created;
}
