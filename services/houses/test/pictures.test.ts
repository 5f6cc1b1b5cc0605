import { defaultMediaSettings } from '@binzip/shared/dist/media';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { photoWithGps } from '../../../test/support/pictures';
import { addAdmin, addMember, startServiceHarness } from '../../../test/support/service';
import type { AppDeps } from '../src/app';
import { housesService, type HousesHarness } from './helpers';

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
