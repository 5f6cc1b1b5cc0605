/**
 * npm run bench:images — picture uploads through the gateway: 8 clients (`--clients`) upload 3 MB phone photos
 * to houses for 30 s (`--seconds`), each client one after another; prints uploads per second, latency, and the
 * houses process's memory (RSS sampled every 500 ms: peak and at the end). The photos are noise JPEGs of about
 * 3 MB, one per client (so later uploads of one client are stored once and only decoded).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { EventBus, connectMongo, createLogger, generateDevKeyPair, signAccessToken } from '../shared/src';
import { onceOrInterrupted } from './lib/cleanup';
import { startMongo } from './lib/mongo';
import { ensureNats } from './lib/nats';
import { startSystem, type RunningSystem } from './lib/system';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function rssMiB(pid: number): number {
  return Math.round(
    Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    ) / 1024,
  );
}

/** A photo-like JPEG of about 3 MB: smooth rows with noise (what a phone's detail costs a JPEG). */
async function photo(seed: number): Promise<Buffer> {
  const width = 2400;
  const height = 1800;
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    pixels[i] = ((i / 3) % width) / 10 + (state & 0x5f);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

async function main(): Promise<void> {
  const clients = arg('clients', 8);
  const seconds = arg('seconds', 30);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-bench-images-'));
  const mongo = await startMongo({ persistent: false, dataDir });
  const nats = await ensureNats({ dataDir });
  const keys = generateDevKeyPair();
  const dbPrefix = `benchimg${Date.now().toString(36)}_`;
  const natsPrefix = dbPrefix.replace(/_/g, '');
  let system: RunningSystem | undefined;
  const cleanUp = onceOrInterrupted(async () => {
    await system?.stop();
    const bus = await EventBus.connect({ url: nats.uri, prefix: natsPrefix, name: 'bench-cleanup', logger: createLogger('bench', 'silent') });
    await bus.deleteStreams();
    await bus.close();
    const connection = await connectMongo(mongo.uri, `${dbPrefix}houses`);
    await connection.dropDatabase();
    await connection.close();
    await nats.stop();
    await mongo.stop();
  });
  try {
    const photos = await Promise.all(Array.from({ length: clients }, (_, i) => photo(i + 1)));
    const average = photos.reduce((sum, p) => sum + p.length, 0) / photos.length / 1_048_576;
    system = await startSystem({
      mongoUri: mongo.uri,
      natsUrl: nats.uri,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      services: ['houses'],
      dbPrefix,
      natsPrefix,
      env: { LOG_LEVEL: 'error', CEILING_PICTURE_UPLOADS: '0', CEILING_MEMBER_WRITES: '0' },
    });
    const running = system;
    const pid = running.services.houses?.[0]?.child.pid ?? 0;
    const idle = rssMiB(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 500);
    const latencies: number[] = [];
    const failures = new Map<number, number>();
    const deadline = Date.now() + seconds * 1_000;
    const client = async (i: number) => {
      const token = `Bearer ${signAccessToken({ userId: 900_000 + i, userName: `bench${i}`, userType: 'NONE', authority: 'USER' }, keys.privateKey)}`;
      while (Date.now() < deadline) {
        const form = new FormData();
        form.append('image', new Blob([new Uint8Array(photos[i])], { type: 'image/jpeg' }), 'photo.jpg');
        const started = Date.now();
        const res = await fetch(`${running.url}/api/v1/houses/images`, { method: 'POST', headers: { authorization: token }, body: form });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(Date.now() - started);
        else failures.set(res.status, (failures.get(res.status) ?? 0) + 1);
      }
    };
    console.log(`${clients} clients uploading ${average.toFixed(1)} MB photos for ${seconds} s (houses RSS idle ${idle} MiB) ...`);
    const begun = Date.now();
    await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
    const elapsed = (Date.now() - begun) / 1_000;
    clearInterval(sampler);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    console.log(
      `uploads ${latencies.length} (${(latencies.length / elapsed).toFixed(2)}/s, ${((latencies.length * average) / elapsed).toFixed(1)} MB/s in), failures ${JSON.stringify(Object.fromEntries(failures))} (by status); ` +
        `latency p50 ${at(0.5)} ms p99 ${at(0.99)} ms; houses RSS idle ${idle} MiB, peak ${peak} MiB, end ${rssMiB(pid)} MiB`,
    );
  } finally {
    await cleanUp();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
