/**
 * npm run bench:images — picture uploads through the gateway: 8 clients (`--clients`) upload 3 MB phone photos
 * to houses for 30 s (`--seconds`), each client one after another; prints uploads per second, latency, and the
 * houses process's memory (RSS sampled every 500 ms: peak and at the end). The photos are noise JPEGs of about
 * 3 MB, one per client (so later uploads of one client are stored once and only decoded).
 */
import sharp from 'sharp';
import { signAccessToken } from '../shared/src';
import { numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { startSystem } from './lib/system';

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
  const stores = await startBenchStores('benchimg', ['houses']);
  const { mongo, nats, keys, dbPrefix, natsPrefix } = stores;
  try {
    const photos = await Promise.all(Array.from({ length: clients }, (_, i) => photo(i + 1)));
    const average = photos.reduce((sum, p) => sum + p.length, 0) / photos.length / 1_048_576;
    const running = await startSystem({
      mongoUri: mongo.uri,
      natsUrl: nats.uri,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      services: ['houses'],
      dbPrefix,
      natsPrefix,
      env: { LOG_LEVEL: 'error', CEILING_PICTURE_UPLOADS: '0', CEILING_MEMBER_WRITES: '0' },
    });
    stores.stopSystem = () => running.stop();
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
    await stores.cleanUp();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
