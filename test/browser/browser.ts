/**
 * A real headless Chromium for the console's browser tests: Debian's `chromium` (or `CHROMIUM_PATH`) driven
 * by playwright-core, since a test tool's own browser download does not work on these machines.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `CHROMIUM_PATH` when set (it must exist), else the first Debian/Ubuntu location that exists. */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

export const NO_CHROMIUM_MESSAGE =
  'browser tests skipped: no Chromium found (set CHROMIUM_PATH, or `apt-get install -y chromium` for /usr/bin/chromium); under CI=true this is a failure';

/**
 * `describe` when a Chromium is there; otherwise a skip with the reason printed, except under CI, where the
 * suite fails instead of quietly testing nothing.
 */
export function describeWithChromium(name: string, body: (executablePath: string) => void): void {
  const executablePath = findChromium();
  if (executablePath) {
    describe(name, () => body(executablePath));
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs a Chromium under CI', () => {
        throw new Error(`no Chromium found under CI=true: ${NO_CHROMIUM_MESSAGE}`);
      });
    });
    return;
  }
  console.warn(NO_CHROMIUM_MESSAGE);
  describe.skip(name, () => body(''));
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh profile each time, so no cookie or cache carries over between runs. */
export async function launchBrowser(executablePath: string, viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'admin-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport,
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots and other things a person looks at after a run; ignored by git. */
export function artifactPath(name: string): string {
  const dir = path.resolve(__dirname, '..', '..', 'test-artifacts', 'admin-console');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
