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
 *
 * `--soak <seconds>` runs the soak instead: the gateway and all five services, seeded through the API (50 posts
 * by ten members, 50 listings by an agent, comments so members have notifications), then for the given seconds a
 * steady `--rate` (120) reads/s (house list, house details, board list, board details, a member's notifications,
 * in equal parts) and `--writes` (5) writes/s (posts, comments, loves toggled) by ten members, paced (open loop:
 * a request starts on its tick whether or not earlier ones have answered; at most 512 in flight, the rest
 * counted as not sent). Per process: RSS before, peak, at the end, after `--idle` seconds, against the limit.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { signAccessToken } from '../shared/src';
import { numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { REPO_ROOT, SERVICES, startSystem, type ProcessHandle } from './lib/system';
import { listingBody } from './lib/bench-listing';

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

/** The soak: the whole system under a steady read and write load for `seconds`. */
async function soak(seconds: number): Promise<void> {
  const rate = arg('rate', 120);
  const writeRate = arg('writes', 5);
  const idleSeconds = arg('idle', 15);
  const maxInFlight = 512;
  const stores = await startBenchStores('benchsoak', SERVICES);
  const { mongo, nats, keys, dbPrefix, natsPrefix } = stores;
  try {
    const running = await startSystem({
      mongoUri: mongo.uri,
      natsUrl: nats.uri,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      dbPrefix,
      natsPrefix,
      // The per-member write ceiling off: ten members write 5/s in all for minutes; the soak measures memory.
      env: { LOG_LEVEL: 'error', CEILING_MEMBER_WRITES: '0' },
      restartBackoffMs: [500],
    });
    stores.stopSystem = () => running.stop();
    const handles: Record<string, ProcessHandle> = { gateway: running.gateway };
    for (const service of SERVICES) {
      const handle = running.services[service]?.[0];
      if (!handle) throw new Error(`${service} must run`);
      handles[service] = handle;
    }
    const limits = Object.fromEntries(Object.keys(handles).map((name) => [name, manifestLimitMiB(name)]));
    const rssNow = () => Object.fromEntries(Object.entries(handles).map(([name, h]) => [name, rssMiB(h.child.pid ?? 0)]));
    const token = (userId: number, userType: 'NONE' | 'AGENT' = 'NONE') =>
      `Bearer ${signAccessToken({ userId, userName: `soak${userId}`, userType, authority: 'USER' }, keys.privateKey)}`;
    const members = Array.from({ length: 10 }, (_, i) => token(920_000 + i));
    const agent = token(920_100, 'AGENT');
    const send = async (method: string, target: string, auth?: string, body?: unknown): Promise<{ status: number; data?: unknown; text: string }> => {
      const headers: Record<string, string> = {};
      if (auth) headers.authorization = auth;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${running.url}${target}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      let data: unknown;
      try {
        data = (JSON.parse(text) as { data?: unknown }).data;
      } catch {
        data = undefined;
      }
      return { status: res.status, data, text: text.slice(0, 300) };
    };
    const postBody = (i: number) => ({
      title: `시골 생활 이야기 ${i}`,
      code: '<p>마당이 넓고 볕이 잘 드는 집입니다. 뒷산 산책로가 이어집니다.</p>'.repeat(2),
      category: 'DAILY',
      prefixCategory: 'DEFAULT',
      fixed: false,
      imageUrls: [],
    });

    // Seed through the API.
    const boardIds = (await pool(50, 4, async (i) => (await send('POST', '/api/v1/boards', members[i % 10], postBody(i))).data)).filter(
      (id): id is number => typeof id === 'number',
    );
    const houseIds = (
      await pool(50, 4, async (i) => {
        const answer = await send('POST', '/api/v1/houses', agent, listingBody(i));
        if (typeof answer.data !== 'number' && i === 0) console.log(`listing refused: ${answer.status} ${answer.text}`);
        return answer.data;
      })
    ).filter((id): id is number => typeof id === 'number');
    await pool(50, 4, (i) => send('POST', '/api/v1/comments', members[(i + 3) % 10], { boardId: boardIds[i % boardIds.length], content: '잘 읽었습니다.' }));
    if (boardIds.length < 10 || houseIds.length < 10) throw new Error(`seeding failed: ${boardIds.length} posts, ${houseIds.length} listings`);
    console.log(`seeded ${boardIds.length} posts, ${houseIds.length} listings, 50 comments; soak ${seconds} s at ${rate} reads/s + ${writeRate} writes/s`);
    await sleep(5_000);

    const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
    const reads = [
      () => send('GET', `/api/v1/houses?page=${Math.floor(Math.random() * 3)}&size=8`),
      () => send('GET', `/api/v1/houses/${pick(houseIds)}`),
      () => send('GET', `/api/v1/boards?prefix=DEFAULT&order=RECENT&page=${Math.floor(Math.random() * 3)}`),
      () => send('GET', `/api/v1/boards/${pick(boardIds)}`),
      () => send('GET', '/api/v1/notifications?read=', pick(members)),
    ];
    const loved = new Set<string>();
    let written = 0;
    const write = () => {
      const n = written++;
      const member = n % 10;
      switch (n % 3) {
        case 0:
          return send('POST', '/api/v1/boards', members[member], postBody(1_000 + n));
        case 1:
          return send('POST', '/api/v1/comments', members[member], { boardId: pick(boardIds), content: '좋은 정보 감사합니다.' });
        default: {
          const boardId = pick(boardIds);
          const key = `${member}:${boardId}`;
          const on = !loved.has(key);
          if (on) loved.add(key);
          else loved.delete(key);
          return send(on ? 'PUT' : 'DELETE', `/api/v1/loves/${boardId}`, members[member]);
        }
      }
    };

    const statuses = { reads: {} as Record<string, number>, writes: {} as Record<string, number> };
    const latencies = { reads: [] as number[], writes: [] as number[] };
    let inFlight = 0;
    const fire = (kind: 'reads' | 'writes', request: () => Promise<{ status: number }>) => {
      const count = (key: string) => (statuses[kind][key] = (statuses[kind][key] ?? 0) + 1);
      if (inFlight >= maxInFlight) return count('not sent');
      inFlight++;
      const started = Date.now();
      request()
        .then((r) => {
          count(String(r.status));
          latencies[kind].push(Date.now() - started);
        })
        .catch(() => count('error'))
        .finally(() => inFlight--);
    };
    const pace = (perSecond: number, tick: () => void) => {
      const start = Date.now();
      let sent = 0;
      const timer = setInterval(() => {
        const due = Math.floor(((Date.now() - start) * perSecond) / 1_000);
        for (; sent < due; sent++) tick();
      }, 5);
      return () => clearInterval(timer);
    };

    const before = rssNow();
    const watch = sampler(handles);
    const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const loadBefore = loadAverage();
    let readNo = 0;
    const stopReads = pace(rate, () => fire('reads', reads[readNo++ % reads.length]));
    const stopWrites = pace(writeRate, () => fire('writes', write));
    const progress = setInterval(() => console.log(`  ${JSON.stringify(rssNow())} in flight ${inFlight}`), 30_000);
    await sleep(seconds * 1_000);
    stopReads();
    stopWrites();
    clearInterval(progress);
    for (let waited = 0; inFlight > 0 && waited < 30_000; waited += 100) await sleep(100);
    const atEnd = rssNow();
    const loadAfter = loadAverage();
    await sleep(idleSeconds * 1_000);
    const peaks = watch.stop();
    const afterIdle = rssNow();

    const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(`\nsoak ${seconds} s: load average ${loadBefore} before, ${loadAfter} at the end`);
    console.log(`  reads  (${total(statuses.reads)}, ${(total(statuses.reads) / seconds).toFixed(1)}/s): ${JSON.stringify(statuses.reads)}`);
    console.log(`  writes (${total(statuses.writes)}, ${(total(statuses.writes) / seconds).toFixed(1)}/s): ${JSON.stringify(statuses.writes)}`);
    for (const kind of ['reads', 'writes'] as const) {
      const sorted = latencies[kind].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      console.log(`  ${kind} answered in p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1) ?? 0} ms`);
    }
    console.log(`  still in flight after 30 s: ${inFlight}`);
    for (const name of Object.keys(handles)) {
      const verdict = peaks[name] < limits[name] ? 'under' : 'OVER';
      console.log(
        `  ${name.padEnd(14)} RSS before ${before[name]} MiB, peak ${peaks[name]} MiB, end ${atEnd[name]} MiB, after ${idleSeconds} s idle ${afterIdle[name]} MiB; limit ${limits[name]} MiB (${verdict}); restarts ${handles[name].restarts}`,
      );
    }
  } finally {
    await stores.cleanUp();
  }
}

async function main(): Promise<void> {
  const soakSeconds = arg('soak', 0);
  if (soakSeconds > 0) return soak(soakSeconds);
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
