import { defaultMediaSettings, sweepUnusedPictures } from '@binzip/shared/media';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@binzip/shared';
import request from 'supertest';
import sharp from 'sharp';
import { expectError, testEnv } from '../../../test/support';
import { photoWithGps } from '../../../test/support/pictures';
import { addAdmin, addMember, startServiceHarness } from '../../../test/support/service';
import { buildApp, type AppDeps } from '../src/service';
import { referencedPictures } from '../src/domain/pictures';
import { housesService, validListing, type HousesHarness } from './helpers';

let h: HousesHarness;

beforeAll(async () => {
  h = await startServiceHarness<HousesHarness['models'], AppDeps>('housespictures', housesService, {
    extra: { media: defaultMediaSettings({ CEILING_PICTURE_UPLOADS: 2, CEILING_PICTURE_UPLOADS_WINDOW_SECONDS: 3_600 }) },
  });
});

afterAll(async () => {
  await h?.close();
});

const upload = (token: string, photo: Buffer) => request(h.app).post('/api/v1/houses/images').set('Authorization', token).attach('image', photo, 'photo.jpg');

test("a member's uploads per window are held to the ceiling (429 C0004 with Retry-After), each member apart, administrators not counted", async () => {
  const alice = await addMember(h.connection, 'alice');
  const bob = await addMember(h.connection, 'bob');
  const admin = await addAdmin(h.connection, 'admin');
  const photo = await photoWithGps(64, 48);
  for (let i = 0; i < 2; i++) expect((await upload(alice.token, photo)).status).toBe(200);
  const refused = await upload(alice.token, photo);
  expectError(refused, 429, 'C0004');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3_000);
  expect((await upload(bob.token, photo)).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await upload(admin.token, photo)).status).toBe(200);
});

test('pictures no listing uses go 24 hours after upload; a deleted listing keeps its pictures for its retention', async () => {
  const admin = await addAdmin(h.connection, 'sweeper-admin');
  const author = await addMember(h.connection, 'author', { userType: 'AGENT' });
  const uploaded = async (seed: number) => {
    const res = await upload(admin.token, await photoWithGps(64, 48, { noise: true, seed }));
    expect(res.status).toBe(200);
    return { url: res.body.data.imageUrl as string, path: new URL(res.body.data.imageUrl as string).pathname };
  };
  const [kept, unused, inBody, ofDeleted] = [await uploaded(11), await uploaded(12), await uploaded(13), await uploaded(14)];
  const create = (body: Record<string, unknown>) => request(h.app).post('/api/v1/houses').set('Authorization', author.token).send(validListing(body));
  expect((await create({ imageUrls: [kept.url] })).status).toBe(200);
  expect((await create({ imageUrls: [], code: `<p>마당</p><img src="${inBody.url}">` })).status).toBe(200);
  const doomed = (await create({ imageUrls: [ofDeleted.url] })).body.data as number;
  expect((await request(h.app).delete(`/api/v1/houses/${doomed}`).set('Authorization', author.token)).status).toBe(200);

  const settings = defaultMediaSettings();
  const sweep = () =>
    sweepUnusedPictures({
      connection: h.connection,
      settings,
      service: 'houses',
      logger: h.ctx.logger,
      now: h.clock.now,
      referenced: (since) => referencedPictures(h.ctx, since),
    });
  const present = async () => {
    const found: string[] = [];
    for (const [name, picture] of Object.entries({ kept, unused, inBody, ofDeleted })) {
      const full = await request(h.app).get(picture.path);
      const thumbnail = await request(h.app).get(picture.path.replace('.webp', '.thumb.webp'));
      expect([name, full.status]).toEqual([name, thumbnail.status]);
      if (full.status === 200) found.push(name);
    }
    return found;
  };

  h.clock.advance(23 * 3_600_000);
  expect(await sweep()).toBe(0);
  h.clock.advance(2 * 3_600_000);
  // `unused`, and the picture the ceiling test uploaded (used by nothing either).
  expect(await sweep()).toBe(2);
  expect(await present()).toEqual(['kept', 'inBody', 'ofDeleted']);
  h.clock.advance(settings.MEDIA_DELETED_RETENTION_DAYS * 86_400_000);
  expect(await sweep()).toBe(1);
  expect(await present()).toEqual(['kept', 'inBody']);
});

test('a file name no picture can have answers 404 C0001 like a missing picture; a bad token is still refused', async () => {
  for (const name of ['photo.jpg', `${'0'.repeat(32)}.png`, `${'0'.repeat(31)}.webp`, `${'0'.repeat(32)}.webp`]) {
    expectError(await request(h.app).get(`/api/v1/houses/images/${name}`), 404, 'C0001');
  }
  expectError(
    await request(h.app)
      .get(`/api/v1/houses/images/${'0'.repeat(32)}.webp`)
      .set('Authorization', 'Bearer not-a-token'),
    401,
    'J0004',
  );
});

/** A multipart body that ends inside its file part: no closing boundary, as a dropped or crafted upload ends. */
function truncatedUpload(token: string, bytes: Buffer) {
  const boundary = 'binzipTruncated';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return request(h.app)
    .post('/api/v1/houses/images')
    .set('Authorization', token)
    .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
    .send(Buffer.concat([Buffer.from(head), bytes]));
}

test('a body that ends inside the file part is 400 C0002 in Korean, and the service goes on answering', async () => {
  const admin = await addAdmin(h.connection, 'truncating-admin');
  const photo = await photoWithGps(64, 48);
  const uncaught: unknown[] = [];
  const record = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', record);
  try {
    const res = await truncatedUpload(admin.token, photo.subarray(0, photo.length >> 1));
    expectError(res, 400, 'C0002', '이미지 파일이 끝까지 전송되지 않았습니다. 다시 올려 주세요.');
    // The error busboy gives the file stream would have been thrown by now (it is emitted on the next tick).
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('uncaughtException', record);
  }
  expect(uncaught).toEqual([]);
  expect((await upload(admin.token, photo)).status).toBe(200);
});

test("an upload's answer names the picture under the configured address, never under the Host the client sent", async () => {
  const admin = await addAdmin(h.connection, 'host-admin');
  const res = await upload(admin.token, await photoWithGps(32, 24, { noise: true, seed: 34 }))
    .set('Host', 'evil.example')
    .set('X-Forwarded-Host', 'evil.example')
    .set('X-Forwarded-Proto', 'https');
  expect(res.status).toBe(200);
  const { imageUrl, thumbnailUrl } = res.body.data as { imageUrl: string; thumbnailUrl: string };
  expect(imageUrl).toMatch(/^http:\/\/localhost:8080\/api\/v1\/houses\/images\/[0-9a-f]{32}\.webp$/);
  expect(thumbnailUrl).toBe(imageUrl.replace(/\.webp$/, '.thumb.webp'));
});

describe('what uploads may hold of the process (issue 34 item 6)', () => {
  /** Another instance of the service on the harness's store, with its own pictures bounds. */
  const instance = (media: Parameters<typeof defaultMediaSettings>[0]) =>
    buildApp({
      connection: h.connection,
      logger: createLogger('housespictures-bounds', 'silent'),
      publicKey: testEnv().publicKey,
      now: h.clock.now,
      media: defaultMediaSettings({ CEILING_PICTURE_UPLOADS: 0, ...media }),
    });

  test('past the uploads one process may hold, the next is refused before its body is read: 429 C0004 with Retry-After', async () => {
    const admin = await addAdmin(h.connection, 'bounds-admin');
    const server = http.createServer(instance({ MEDIA_MAX_PENDING_UPLOADS: 1 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // One upload whose body is still arriving holds the only place.
    const held = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/houses/images',
      headers: {
        authorization: admin.token,
        'content-type': 'multipart/form-data; boundary=held',
        'content-length': 1_000_000,
      },
    });
    held.on('error', () => undefined);
    held.write('--held\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\n');
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await request(server)
        .post('/api/v1/houses/images')
        .set('Authorization', admin.token)
        .attach('image', await photoWithGps(32, 24), 'a.jpg');
      expectError(refused, 429, 'C0004');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      held.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // Three 4-megapixel noise pictures made and one encoded: 12 s alone on a loaded 2-core machine, over the default
  // 30 s beside other suites.
  test('an upload that cannot be decoded within its wait is refused (503 C0000, Retry-After), never left to time out', async () => {
    const admin = await addAdmin(h.connection, 'bounds-admin-2');
    // The answer's deadline far off: the one encoding finishes however loaded the machine (this is the wait's test).
    const app = instance({ MEDIA_MAX_PENDING_UPLOADS: 6, MEDIA_CONCURRENT_ENCODES: 1, MEDIA_ENCODE_WAIT_MS: 100, MEDIA_ANSWER_DEADLINE_MS: 120_000 });
    const photos = await Promise.all([1, 2, 3].map((seed) => photoWithGps(2_400, 1_800, { noise: true, seed: 340 + seed })));
    const answers = await Promise.all(
      photos.map((photo) => request(app).post('/api/v1/houses/images').set('Authorization', admin.token).attach('image', photo, 'a.jpg')),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses[0]).toBe(200);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    for (const res of answers.filter((answer) => answer.status === 503)) {
      expectError(res, 503, 'C0000', '서비스를 일시적으로 사용할 수 없습니다.');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  }, 90_000);

  test('an upload that could not be encoded before its answer is due does not wait for a slot: 503 at once, not a 504 later', async () => {
    const admin = await addAdmin(h.connection, 'bounds-admin-3');
    // A long slot wait, but answers due 1 s after the body: 15-megapixel pictures are expected to take longer
    // than that (60 ms a megapixel to start with), so none may wait behind another; the one encoding may finish.
    const app = instance({ MEDIA_MAX_PENDING_UPLOADS: 6, MEDIA_CONCURRENT_ENCODES: 1, MEDIA_ENCODE_WAIT_MS: 60_000, MEDIA_ANSWER_DEADLINE_MS: 1_000 });
    const photos = await Promise.all(
      [1, 2, 3].map((seed) =>
        sharp({ create: { width: 5_000, height: 3_000, channels: 3, background: { r: 40 * seed, g: 90, b: 30 } } })
          .jpeg()
          .toBuffer(),
      ),
    );
    const started = Date.now();
    const answers = await Promise.all(
      photos.map((photo) => request(app).post('/api/v1/houses/images').set('Authorization', admin.token).attach('image', photo, 'a.jpg')),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(2);
    for (const res of answers.filter((answer) => answer.status === 503)) {
      expectError(res, 503, 'C0000', '서비스를 일시적으로 사용할 수 없습니다.');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Nothing waited its 60 s: every answer came within the deadline's reach (generous for a loaded machine).
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 90_000);
});
