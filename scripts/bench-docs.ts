/**
 * How long `/docs` takes to become usable in a real headless Chromium (the flags and fresh profile of the browser
 * tests): the gateway's docs router in this process, fed the five services' real documents by small upstream
 * servers, exactly as the gateway fetches them. Prints, per run, the time until the page lists the operations
 * (Swagger UI's first operation block visible), the CPU time all of Chromium's processes spent until then (on a
 * shared, loaded machine the wall time stretches, the CPU time does not: on an idle one the wall time is about
 * the CPU time), the same for opening one operation, and the bytes sent; asserts nothing.
 *
 *   npm run bench:docs -- [--runs 3] [--page /docs|/docs/try] [--definition houses|all|…  (Swagger UI's)]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import express from 'express';
import { createLogger } from '../shared/src';
import { apiDocsRouter } from '../services/gateway/src/routes/api-docs';
import { FLAGS, findChromium } from '../test/browser/browser';
import { SERVICE_DOCUMENTS } from './lib/openapi';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const RUNS = Number(option('runs', '3'));
/** The page: `/docs` (the HTML reference) or `/docs/try` (Swagger UI). */
const PAGE = option('page', '/docs');
/** Swagger UI's definition to open first (one service's, or `all`); empty: the page's own first one. */
const DEFINITION = option('definition', '');

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const TICK_MS = 10; // USER_HZ 100 on Linux

/** CPU milliseconds (user + system) of every process whose command line names the profile, and their children. */
function chromiumCpuMs(profile: string): number {
  const stats = new Map<number, { parent: number; cpu: number; mine: boolean }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const mine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(profile);
      stats.set(pid, { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) * TICK_MS, mine });
    } catch {
      // gone meanwhile
    }
  }
  const counted = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 10; p = stats.get(p)?.parent ?? 0, depth += 1) if (stats.get(p)?.mine) return true;
    return false;
  };
  return [...stats].filter(([pid]) => counted(pid)).reduce((sum, [, stat]) => sum + stat.cpu, 0);
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium: set CHROMIUM_PATH or `apt-get install -y chromium`');
  const upstreams: http.Server[] = [];
  const services: Record<string, string[]> = {};
  for (const [name, document] of Object.entries(SERVICE_DOCUMENTS)) {
    const body = JSON.stringify(document());
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    upstreams.push(server);
    services[name] = [await listen(server)];
  }
  const gateway = http.createServer(express().use(apiDocsRouter({ services: () => services, logger: createLogger('bench', 'silent') })));
  const base = await listen(gateway);
  // Warm the merged document once, as a running gateway would have it.
  await fetch(`${base}/openapi.json`).then((res) => res.arrayBuffer());
  try {
    for (let run = 1; run <= RUNS; run += 1) {
      const profile = mkdtempSync(path.join(os.tmpdir(), 'bench-docs-chromium-'));
      const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        let bytes = 0;
        page.on('response', (response) => {
          void response
            .request()
            .sizes()
            .then((sizes) => {
              bytes += sizes.responseBodySize + sizes.responseHeadersSize;
            })
            .catch(() => undefined);
        });
        const busy = async () => Promise.resolve(chromiumCpuMs(profile));
        const before = await busy();
        const started = performance.now();
        if (DEFINITION) {
          // Swagger UI's query configuration stays off on the gateway (it would let a link load another document).
          await page.route('**/docs/swagger-initializer.js', async (route) => {
            const response = await route.fetch();
            const body = (await response.text()).replace('dom_id:', `'urls.primaryName': ${JSON.stringify(DEFINITION)}, dom_id:`);
            await route.fulfill({ response, body });
          });
        }
        await page.goto(`${base}${PAGE}`);
        await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 120_000 });
        const usable = performance.now() - started;
        const usableBusy = (await busy()) - before;
        const operations = await page.locator('.opblock').count();
        const opening = performance.now();
        const openedBusy = await busy();
        await page.locator('.opblock-summary').first().click();
        // Swagger UI marks an opened operation `is-open`; the reference's is an open <details>.
        await page
          .locator('.opblock.is-open .responses-wrapper, details.opblock[open] .responses-wrapper')
          .first()
          .waitFor({ state: 'visible', timeout: 120_000 });
        const opened = performance.now() - opening;
        const openBusy = (await busy()) - openedBusy;
        await page.waitForTimeout(200);
        const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
        console.log(
          `run ${run}: ${PAGE} usable after ${s(usable)} (Chromium CPU ${s(usableBusy)}; ${operations} operations listed), ` +
            `one operation opened after ${s(opened)} (CPU ${s(openBusy)}), ${(bytes / 1024).toFixed(0)} KiB transferred`,
        );
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally {
    gateway.close();
    upstreams.forEach((server) => server.close());
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
