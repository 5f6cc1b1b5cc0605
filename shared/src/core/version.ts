import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const cache = new Map<string, string>();

/**
 * The release of a process: the `version` of its workspace's package.json (services/<name>/package.json), the one
 * source of truth that `/health` answers and the image build writes into the OCI label
 * `org.opencontainers.image.version` (scripts/lib/release.ts; docs/containers.md, "Versions and releases").
 * Read from the file beside the compiled code (shared/dist/core → ../../../services/<name>), which every image
 * carries; 'unknown' where the file is not there (a process name that is not a workspace, such as a test's).
 */
export function processVersion(name: string): string {
  let version = cache.get(name);
  if (version === undefined) {
    try {
      const file = path.resolve(__dirname, '..', '..', '..', 'services', name, 'package.json');
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      version = typeof parsed.version === 'string' ? parsed.version : 'unknown';
    } catch {
      version = 'unknown';
    }
    cache.set(name, version);
  }
  return version;
}
