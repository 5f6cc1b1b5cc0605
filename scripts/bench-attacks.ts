/**
 * npm run bench:attacks — the services' attacks of issue 34 against the built system on loopback (community and
 * houses behind the gateway, throw-away stores), printing each process's resident memory (RSS, sampled every
 * 250 ms: before, peak, and after `--idle` seconds) against the memory its Kubernetes manifest allows
 * (deploy/kubernetes/base/<service>.yaml), and what the attack got answered. Bounded: each attack has a fixed
 * request count; nothing leaves 127.0.0.1.
 *
 * 1. truncated uploads: multipart bodies that end inside the file part, to both services (`--truncated`, 40);
 *    the processes must still be the same ones afterwards.
 * 2. cache flood: one member posts a large board (50,000 Korean characters), then anonymous reads of it with
 *    `?utm=<i>` (`--reads`, 6,000; 32 at once).
 * 3. large pictures: two members upload 50-megapixel JPEGs to community, `--uploads` (32) at once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { signAccessToken } from '../shared/src';
import { numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { REPO_ROOT, startSystem, type ProcessHandle } from './lib/system';

/** The memory limit of a component's manifest, in MiB. */
function manifestLimitMiB(component: string): number {
  const text = readFileSync(path.join(REPO_ROOT, 'deploy', 'kubernetes', 'base', `${component}.yaml`), 'utf8');
  const match = /limits:\s*\{\s*memory:\s*(\d+)Mi\s*\}/.exec(text);
  if (!match) throw new Error(`no memory limit in ${component}.yaml`);
  return Number(match[1]);
}

/** Samples the RSS of `handles` until stopped: the peak of each. */
function sampler(handles: Record<string, ProcessHandle>) {
  const peaks: Record<string, number> = {};
  const sample = () => {
    for (const [name, handle] of Object.entries(handles)) {
      const pid = handle.child.pid;
      if (pid) peaks[name] = Math.max(peaks[name] ?? 0, rssMiB(pid));
    }
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` tasks, `concurrency` at a time. */
async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const tally = (statuses: number[]) => JSON.stringify(statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {}));

/** A 50-megapixel photo-like JPEG (smooth gradients, light noise) of a few MB. */
async function fiftyMegapixels(seed: number): Promise<Buffer> {
  const width = 8_660;
  const height = 5_770;
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    pixels[i] = (((i / 3) % width) / 40 + Math.floor(i / 3 / width) / 30 + (state & 0x07)) & 0xff;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

async function main(): Promise<void> {
  const truncated = arg('truncated', 40);
  const reads = arg('reads', 6_000);
  const uploads = arg('uploads', 32);
  const idleSeconds = arg('idle', 15);
  const stores = await startBenchStores('benchatk', ['community', 'houses']);
  const { mongo, nats, keys, dbPrefix, natsPrefix } = stores;
  try {
    const running = await startSystem({
      mongoUri: mongo.uri,
      natsUrl: nats.uri,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      services: ['community', 'houses'],
      dbPrefix,
      natsPrefix,
      // Ceilings off: the attacks measure the bounds of the process, not the per-member counts in front of them.
      env: { LOG_LEVEL: 'error', CEILING_PICTURE_UPLOADS: '0', CEILING_MEMBER_WRITES: '0' },
      restartBackoffMs: [500],
    });
    stores.stopSystem = () => running.stop();
    const community = running.services.community?.[0];
    const houses = running.services.houses?.[0];
    if (!community || !houses) throw new Error('community and houses must run');
    const handles = { gateway: running.gateway, community, houses };
    const limits = Object.fromEntries(Object.keys(handles).map((name) => [name, manifestLimitMiB(name)]));
    const token = (userId: number) =>
      `Bearer ${signAccessToken({ userId, userName: `attacker${userId}`, userType: 'NONE', authority: 'USER' }, keys.privateKey)}`;
    const report = (attack: string, before: Record<string, number>, peaks: Record<string, number>, after: Record<string, number>, answers: string) => {
      console.log(`\n${attack}: ${answers}`);
      for (const name of Object.keys(handles)) {
        const verdict = peaks[name] < limits[name] ? 'under' : 'OVER';
        console.log(
          `  ${name.padEnd(10)} RSS before ${before[name]} MiB, peak ${peaks[name]} MiB, after idle ${after[name]} MiB; limit ${limits[name]} MiB (${verdict})`,
        );
      }
      console.log(`  restarts: community ${community.restarts}, houses ${houses.restarts}, gateway ${running.gateway.restarts}`);
    };
    const rssNow = () => Object.fromEntries(Object.entries(handles).map(([name, h]) => [name, rssMiB(h.child.pid ?? 0)]));

    // 1. Truncated uploads.
    {
      const before = rssNow();
      const watch = sampler(handles);
      const boundary = 'benchTruncated';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
      const body = Buffer.concat([Buffer.from(head), Buffer.alloc(20_000, 0xd8)]);
      const statuses = await pool(truncated, 4, async (i) => {
        const target = i % 2 === 0 ? '/api/v1/boards/images' : '/api/v1/houses/images';
        try {
          const res = await fetch(`${running.url}${target}`, {
            method: 'POST',
            headers: { authorization: token(910_000 + (i % 2)), 'content-type': `multipart/form-data; boundary=${boundary}` },
            body,
          });
          await res.arrayBuffer();
          return res.status;
        } catch {
          return 0;
        }
      });
      await sleep(1_000);
      const peaks = watch.stop();
      report(`truncated uploads (${truncated})`, before, peaks, rssNow(), `answers ${tally(statuses)} (status: count; 0 = connection failed)`);
    }

    // 2. One large board read anonymously with ?utm=<i>.
    {
      const code = `<p>${'빈집 이야기 '.repeat(7_100).slice(0, 49_000)}</p>`;
      const created = await fetch(`${running.url}/api/v1/boards`, {
        method: 'POST',
        headers: { authorization: token(910_010), 'content-type': 'application/json' },
        body: JSON.stringify({ title: '큰 글', code, category: 'DAILY', prefixCategory: 'DEFAULT', fixed: false, imageUrls: [] }),
      });
      const boardId = ((await created.json()) as { data: number }).data;
      const before = rssNow();
      const watch = sampler(handles);
      const started = Date.now();
      const statuses = await pool(reads, 32, async (i) => {
        const res = await fetch(`${running.url}/api/v1/boards/${boardId}?utm=${i}&ref=bench${i}`);
        await res.arrayBuffer();
        return res.status;
      });
      const seconds = (Date.now() - started) / 1_000;
      await sleep(idleSeconds * 1_000);
      const peaks = watch.stop();
      report(
        `cache flood (${reads} reads of one ${Math.round(Buffer.byteLength(code) / 1024)} KB board, ${(reads / seconds).toFixed(0)}/s)`,
        before,
        peaks,
        rssNow(),
        `answers ${tally(statuses)}`,
      );
    }

    // 3. Two members, 50-megapixel uploads at once.
    {
      const photos = [await fiftyMegapixels(1), await fiftyMegapixels(2)];
      const sizes = photos.map((p) => `${(p.length / 1_048_576).toFixed(1)} MB`).join(', ');
      const before = rssNow();
      const watch = sampler(handles);
      const latencies: number[] = [];
      const statuses = await pool(uploads, uploads, async (i) => {
        const form = new FormData();
        // Each upload a new picture (a byte changed in the JPEG comment-free tail is still the same pixels, so the
        // same stored file): the cost is the decode, which every upload pays.
        form.append('image', new Blob([new Uint8Array(photos[i % 2])], { type: 'image/jpeg' }), 'big.jpg');
        const started = Date.now();
        try {
          const res = await fetch(`${running.url}/api/v1/boards/images`, { method: 'POST', headers: { authorization: token(910_100 + (i % 2)) }, body: form });
          await res.arrayBuffer();
          latencies.push(Date.now() - started);
          return res.status;
        } catch {
          return 0;
        }
      });
      await sleep(idleSeconds * 1_000);
      const peaks = watch.stop();
      latencies.sort((a, b) => a - b);
      report(
        `large pictures (${uploads} uploads at once of 50 MP JPEGs, ${sizes}, from 2 members)`,
        before,
        peaks,
        rssNow(),
        `answers ${tally(statuses)}, slowest ${latencies.at(-1) ?? 0} ms`,
      );
    }
  } finally {
    await stores.cleanUp();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
