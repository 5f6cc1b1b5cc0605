/**
 * Pictures a test uploads (made here with the same image library, so nothing is checked in), and the one suite of
 * upload tests run on each picture store (pictures-gridfs and pictures-s3 e2e files).
 */
import http from 'node:http';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { bearer, eventually } from './index';
import { sampleListing, startE2eSystem, type E2eSystem } from './e2e';
import { apiContract } from './contract';

/** A phone photo: a JPEG with camera and GPS EXIF (the house's position). `noise` makes it photo-sized in bytes. */
export async function photoWithGps(width: number, height: number, options: { noise?: boolean; seed?: number } = {}): Promise<Buffer> {
  const input = options.noise
    ? sharp(randomPixels(width, height, options.seed ?? 1), { raw: { width, height, channels: 3 } })
    : sharp({ create: { width, height, channels: 3, background: { r: 140, g: 170, b: 100 } } });
  return input
    .jpeg({ quality: 92 })
    .withExif({
      IFD0: { Make: 'PhoneMaker', Model: 'Camera X' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '35/1 19/1 4/1', GPSLongitudeRef: 'E', GPSLongitude: '126/1 59/1 0/1' },
    })
    .toBuffer();
}

/** Pixels of a cheap deterministic generator: noise that JPEG cannot shrink much, like a real photo's detail. */
function randomPixels(width: number, height: number, seed: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    // Smooth rows with some noise: a photo compresses between a flat colour and pure noise.
    pixels[i] = ((i / 3) % width) / 8 + (state & 0x3f);
  }
  return pixels;
}

/** A decompression bomb: a valid 10000 x 10000 grey PNG (100 megapixels) of about 100 KB. */
export function pngBomb(side = 10_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  // Every row: filter byte 0 and `side` zero pixels, all zeros, which deflate squeezes about a thousand times.
  const pixels = deflateSync(Buffer.alloc((side + 1) * side), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export const svgWithScript = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" onload="alert(1)"><script>alert(document.cookie)</script><rect width="200" height="200" fill="red"/></svg>',
);

/** One file in a multipart form, with whatever name and type the client claims. */
export function pictureForm(data: Buffer, fileName = 'photo.jpg', type = 'image/jpeg'): FormData {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(data)], { type }), fileName);
  return form;
}

interface Uploaded {
  imageUrl: string;
  thumbnailUrl: string;
  width: number;
  height: number;
}

const KOREAN = /[가-힣]/;

/**
 * A POST whose answer comes before its body: the headers go first, and the body only if no answer came within a
 * second (fetch sends everything at once and gives up on the broken pipe instead of reading the answer).
 */
async function postUnread(url: string, token: string, form: FormData): Promise<{ status: number; body: { code: string; message: string } }> {
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: token, 'content-type': encoded.headers.get('content-type') ?? '', 'content-length': body.length },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.flushHeaders();
    setTimeout(() => {
      if (!answered) req.end(body);
    }, 1_000);
  });
}

/**
 * Uploads through the real gateway to houses and community on the given store settings: what comes back is
 * clean WebP of bounded size, served immutable; what is not a picture is refused.
 */
export interface PictureStoreUnderTest {
  /** The `MEDIA_*` environment of both services (read when the system starts). */
  env: () => NodeJS.ProcessEnv;
  /** Whether the store holds `key` (`<hash>.webp`, `<hash>.thumb.webp`) of `service`, looked at directly. */
  holds: (e2e: E2eSystem, service: 'houses' | 'community', key: string) => Promise<boolean>;
}

export function picturesSuite(label: string, store: PictureStoreUnderTest): void {
  let e2e: E2eSystem;
  const member = bearer({ userId: 730_001, userType: 'NONE' });

  beforeAll(async () => {
    e2e = await startE2eSystem(label, { services: ['houses', 'community'], env: { LOG_LEVEL: 'warn', ...store.env() } });
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  const upload = (path: string, form: FormData) => e2e.api<Uploaded>('POST', path, { token: member, form });

  test('a phone photo comes back as WebP without any metadata, bounded, with its thumbnail, served immutable', async () => {
    const photo = await photoWithGps(3000, 2000);
    expect((await sharp(photo).metadata()).exif?.includes(Buffer.from('PhoneMaker'))).toBe(true);
    const res = await upload('/api/v1/houses/images', pictureForm(photo));
    expect(res.status).toBe(200);
    const data = res.body.data as Uploaded;
    expect(data).toMatchObject({ width: 2560, height: 1707 });
    expect(data.imageUrl).toMatch(new RegExp(`^${e2e.url}/api/v1/houses/images/[0-9a-f]{32}\\.webp$`));
    expect(data.thumbnailUrl).toBe(data.imageUrl.replace(/\.webp$/, '.thumb.webp'));

    const full = await fetch(data.imageUrl);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('image/webp');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = full.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const bytes = Buffer.from(await full.arrayBuffer());
    const served = await sharp(bytes).metadata();
    expect({ format: served.format, width: served.width, height: served.height }).toEqual({ format: 'webp', width: 2560, height: 1707 });
    expect({ exif: served.exif, xmp: served.xmp, icc: served.icc, iptc: served.iptc }).toEqual({
      exif: undefined,
      xmp: undefined,
      icc: undefined,
      iptc: undefined,
    });
    expect(bytes.includes(Buffer.from('PhoneMaker'))).toBe(false);

    const key = data.imageUrl.split('/').at(-1) ?? '';
    expect(await store.holds(e2e, 'houses', key)).toBe(true);
    expect(await store.holds(e2e, 'houses', key.replace('.webp', '.thumb.webp'))).toBe(true);
    expect(await store.holds(e2e, 'community', key)).toBe(false);

    const again = await fetch(data.imageUrl, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);

    const thumbnail = await fetch(data.thumbnailUrl);
    expect(thumbnail.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const small = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata();
    expect({ format: small.format, width: small.width, height: small.height }).toEqual({ format: 'webp', width: 480, height: 320 });
  });

  test('the same file uploaded twice has the same URL; a small picture is never enlarged', async () => {
    const photo = await photoWithGps(400, 300);
    const first = await upload('/api/v1/boards/images', pictureForm(photo, 'a.jpg'));
    const second = await upload('/api/v1/boards/images', pictureForm(photo, 'b.png', 'image/png'));
    expect(first.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(first.body.data).toMatchObject({ width: 400, height: 300, imageUrl: expect.stringContaining('/api/v1/boards/images/') });
    const thumbnail = await sharp(Buffer.from(await (await fetch((first.body.data as Uploaded).thumbnailUrl)).arrayBuffer())).metadata();
    expect({ width: thumbnail.width, height: thumbnail.height }).toEqual({ width: 400, height: 300 });
  });

  test('lists show our pictures as thumbnails, details the full pictures; other URLs stay as they are', async () => {
    const photo = (await upload('/api/v1/houses/images', pictureForm(await photoWithGps(900, 600, { seed: 7 })))).body.data as Uploaded;
    const other = 'https://img.example.com/hanok.jpg';
    const agent = bearer({ userId: 730_002, userType: 'AGENT' });
    const houseId = await e2e.ok<number>('POST', '/api/v1/houses', {
      token: agent,
      body: { ...sampleListing('사진 있는 한옥'), imageUrls: [photo.imageUrl, other] },
    });
    const foreign = await e2e.ok<number>('POST', '/api/v1/houses', { token: agent, body: { ...sampleListing('남의 사진'), imageUrls: [other] } });
    const houses = await e2e.ok<{ content: Array<{ houseId: number; imageUrl: string | null }> }>('GET', '/api/v1/houses');
    const listed = new Map(houses.content.map((item) => [item.houseId, item.imageUrl]));
    expect([listed.get(houseId), listed.get(foreign)]).toEqual([photo.thumbnailUrl, other]);
    expect((await e2e.ok<{ imageUrls: string[] }>('GET', `/api/v1/houses/${houseId}`)).imageUrls).toEqual([photo.imageUrl, other]);

    const boardPhoto = (await upload('/api/v1/boards/images', pictureForm(await photoWithGps(900, 600, { seed: 8 })))).body.data as Uploaded;
    const board = { title: '마당 사진', code: '<p>마당</p>', category: 'DAILY', prefixCategory: 'DEFAULT', fixed: false, imageUrls: [boardPhoto.imageUrl] };
    const boardId = await e2e.ok<number>('POST', '/api/v1/boards', { token: member, body: board });
    const boards = await e2e.ok<{ content: Array<{ boardId: number; imageUrl: string | null }> }>('GET', '/api/v1/boards?prefix=DEFAULT');
    expect(boards.content.find((item) => item.boardId === boardId)?.imageUrl).toBe(boardPhoto.thumbnailUrl);
    expect((await e2e.ok<{ imageUrls: string[] }>('GET', `/api/v1/boards/${boardId}`)).imageUrls).toEqual([boardPhoto.imageUrl]);
  });

  test('anything that is not a bounded raster picture is refused with a Korean message', async () => {
    const refusals: Array<[string, FormData, number]> = [
      ['png bomb', pictureForm(pngBomb(), 'bomb.png', 'image/png'), 400],
      ['text named .jpg', pictureForm(Buffer.from('just some text, not a picture\n'.repeat(20)), 'photo.jpg'), 400],
      ['svg with script', pictureForm(svgWithScript, 'drawing.svg', 'image/svg+xml'), 400],
      ['no file', new FormData(), 400],
    ];
    for (const [what, form, status] of refusals) {
      const res = await upload('/api/v1/houses/images', form);
      expect({ what, status: res.status, code: res.body.code, korean: KOREAN.test(res.body.message) }).toEqual({ what, status, code: 'C0002', korean: true });
    }
    // The gateway answers an 11 MB upload from its declared length, before the body, and closes the connection.
    const huge = await postUnread(`${e2e.url}/api/v1/houses/images`, member, pictureForm(Buffer.alloc(11 * 1024 * 1024, 0xff), 'huge.jpg'));
    expect({ status: huge.status, code: huge.body.code, korean: KOREAN.test(huge.body.message) }).toEqual({ status: 413, code: 'C0002', korean: true });
    const json = await e2e.api('POST', '/api/v1/boards/images', { token: member, body: { imageUrl: 'https://example.com/a.jpg' } });
    expect({ status: json.status, code: json.body.code }).toEqual({ status: 400, code: 'C0002' });
    const anonymous = await e2e.api('POST', '/api/v1/boards/images', { form: pictureForm(await photoWithGps(50, 50)) });
    expect({ status: anonymous.status, code: anonymous.body.code }).toEqual({ status: 401, code: 'J0000' });
    const missing = await e2e.api('GET', `/api/v1/houses/images/${'0'.repeat(32)}.webp`);
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: 'C0001' });
    expect((await e2e.api('GET', `/api/v1/boards/images/${'0'.repeat(32)}.thumb.webp`)).status).toBe(404);
  });

  test("a suspended member's upload is refused in both services, once each has learnt of the suspension", async () => {
    const suspendedId = 730_003;
    await e2e.publishUser({ id: suspendedId, nick_name: '정지회원', status: 'SUSPENDED' });
    const photo = await photoWithGps(50, 50);
    for (const path of ['/api/v1/houses/images', '/api/v1/boards/images']) {
      // The projection learns of the suspension from the snapshot event, a moment later; until then the upload succeeds.
      const refusal = await eventually(async () => {
        const res = await e2e.api('POST', path, { token: bearer({ userId: suspendedId }), form: pictureForm(photo) });
        return res.status === 403 ? res : undefined;
      }, 15_000);
      expect({ path, code: refusal.body.code }).toEqual({ path, code: 'U0012' });
    }
  });

  test('every pictures operation is covered', async () => {
    const contract = await apiContract();
    expect(contract.uncovered('pictures')).toEqual([]);
  });
}
