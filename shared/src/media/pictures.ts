/**
 * Pictures: an upload taken in, encoded and stored, its record in the service's store, and the URLs the answers
 * show (a thumbnail beside each of our own pictures).
 */
import { pipeline } from 'node:stream/promises';
import type http from 'node:http';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { Schema, type Connection, type Model } from 'mongoose';
import { isAdmin, type AuthClaims } from '../core/auth';
import { Ceiling } from '../store/mongo';
import { AppError, GatewayFaults, ServiceBusyError, TooManyRequestsError } from '../core/wire';
import type { Logger } from '../core/telemetry';
import { registerModel } from '../store/mongo';
import type { MediaSettings } from './config';
import sharp from 'sharp';
import { EncodeAbandoned, EncodeCost, encodePicture, EncodeNotStarted, encodeSlots, pictureHeader, uploadAdmission } from './encode';
import { IMMUTABLE_CACHE_CONTROL, pictureStoreFor, type PictureStore } from './store';

/** What an upload answers: `imageUrl` goes into `imageUrls`; lists show `thumbnailUrl`. */
export interface UploadedPicture {
  imageUrl: string;
  thumbnailUrl: string;
  width: number;
  height: number;
}

/** One uploaded picture (its two files are `<_id>.webp` and `<_id>.thumb.webp` in the store). */
export interface PictureDoc {
  /** The content hash. */
  _id: string;
  ownerId: number;
  createdAt: Date;
}

const pictureSchema = new Schema<PictureDoc>(
  {
    _id: { type: String, required: true },
    ownerId: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The sweep looks for the oldest records first.
pictureSchema.index({ createdAt: 1 });

export const pictureModel = (connection: Connection): Model<PictureDoc> => registerModel(connection, 'Picture', pictureSchema);

/** A stored file's name: `<content hash>.webp` (the full picture) or `<content hash>.thumb.webp`. */
export const PICTURE_FILE_NAME = /^[0-9a-f]{32}(\.thumb)?\.webp$/;
const WEBP = 'image/webp';
const fullKey = (hash: string) => `${hash}.webp`;
const thumbnailKey = (hash: string) => `${hash}.thumb.webp`;

export const UploadRefusals = {
  notMultipart: () => new AppError('C0002', '이미지는 multipart/form-data 형식의 파일 하나로 올려야 합니다.'),
  noFile: () => new AppError('C0002', '올릴 이미지 파일이 없습니다.'),
  moreThanOne: () => new AppError('C0002', '이미지는 한 번에 한 장만 올릴 수 있습니다.'),
  tooLarge: (maxBytes: number) =>
    new AppError('C0002', `이미지 파일은 ${Math.floor(maxBytes / (1024 * 1024))}MB 이하여야 합니다.`, GatewayFaults.tooLarge.status),
  interrupted: () => new AppError('C0002', '이미지 업로드가 중단되었습니다.'),
  truncated: () => new AppError('C0002', '이미지 파일이 끝까지 전송되지 않았습니다. 다시 올려 주세요.'),
} as const;

/**
 * Reads the one file part of a multipart request, refusing past `maxBytes` as soon as it is passed (the rest is
 * read and dropped, never kept). The file's declared name and type are ignored: the bytes are judged by decoding.
 */
function receiveOneFile(req: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 8, fieldSize: 1024, parts: 10 } });
    } catch {
      reject(UploadRefusals.notMultipart());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let files = 0;
    let settled = false;
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      // The rest of the body is read and dropped (the data listener below hands nothing more to the parser), so
      // the client reads the refusal's envelope instead of a reset.
      req.resume();
      reject(err);
    };
    parser.on('file', (_field, stream) => {
      files++;
      // busboy destroys the file stream with an error when the body ends inside the file (no closing boundary)
      // or the parser fails: every stream here has an error listener, or one member's upload would end the process.
      stream.on('error', () => fail(UploadRefusals.truncated()));
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      stream.on('limit', () => fail(UploadRefusals.tooLarge(maxBytes)));
    });
    parser.on('filesLimit', () => fail(UploadRefusals.moreThanOne()));
    parser.on('partsLimit', () => fail(UploadRefusals.notMultipart()));
    parser.on('fieldsLimit', () => fail(UploadRefusals.notMultipart()));
    parser.on('error', () => fail(UploadRefusals.notMultipart()));
    parser.on('close', () => {
      if (settled) return;
      if (files === 0 || size === 0) return fail(UploadRefusals.noFile());
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.once('close', () => {
      if (!req.complete) fail(UploadRefusals.interrupted());
    });
    // Handed to the parser by listeners of our own, not `req.pipe(parser)`, which listens for neither stream's
    // errors (eslint-rules/streams.mjs), and not `pipeline`, which would destroy the request on the parser's first
    // error: the client would get a reset where it should read the refusal.
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (!parser.write(chunk)) req.pause();
    });
    parser.on('drain', () => {
      if (!settled) req.resume();
    });
    req.once('end', () => {
      if (!settled) parser.end();
    });
    req.on('error', () => fail(UploadRefusals.interrupted()));
  });
}

export interface PicturesDeps {
  connection: Connection;
  settings: MediaSettings;
  /** The service's name: the default S3 key prefix (`<service>/images/`). */
  service: string;
  /** Where the routes are mounted, e.g. `/api/v1/houses/images`. */
  mountPath: string;
  logger: Logger;
  now: () => Date;
}

/** A service's pictures: upload, serve, and what its domain needs to know about its picture URLs. */
export interface Pictures {
  readonly settings: MediaSettings;
  readonly store: PictureStore;
  readonly records: Model<PictureDoc>;
  /** Reads the multipart body of `req` itself. */
  upload(caller: AuthClaims, req: Request): Promise<UploadedPicture>;
  /** Answers `res` itself with the stored file `file` (a `PICTURE_FILE_NAME`), immutable, or 304 for its ETag. */
  serve(file: string, req: Request, res: Response): Promise<void>;
}

export function createPictures(deps: PicturesDeps): Pictures {
  const { settings } = deps;
  const store = pictureStoreFor(settings, deps.connection, deps.service);
  const records = pictureModel(deps.connection);
  // libvips' own threads per picture: each holds its buffers (and, with glibc, its malloc arena, kept after the
  // upload): a container's core or two gain nothing from more, and its memory would follow the thread count.
  sharp.concurrency(settings.MEDIA_VIPS_THREADS);
  const slot = encodeSlots({ limit: settings.MEDIA_CONCURRENT_ENCODES, maxWaitMs: settings.MEDIA_ENCODE_WAIT_MS });
  const admission = uploadAdmission(settings.MEDIA_MAX_PENDING_UPLOADS);
  const retryAfterSeconds = Math.max(1, Math.ceil(settings.MEDIA_ENCODE_WAIT_MS / 1_000));
  // What an encode costs here, learned as pictures are encoded: whether one can still be done before its answer
  // is due is judged from it.
  const cost = new EncodeCost();
  const limits = { maxInputPixels: settings.MEDIA_MAX_INPUT_PIXELS, maxSide: settings.MEDIA_MAX_SIDE, thumbnailSide: settings.MEDIA_THUMBNAIL_SIDE };

  // Counted before the body is read: a member past the ceiling costs no decoding.
  const uploads = new Ceiling(deps.connection, {
    name: 'picture-uploads',
    limit: settings.CEILING_PICTURE_UPLOADS,
    windowSeconds: settings.CEILING_PICTURE_UPLOADS_WINDOW_SECONDS,
  });

  // From configuration only: a URL built from the request's `Host` would name whatever host the client sent.
  const baseUrl = settings.MEDIA_PUBLIC_BASE_URL ?? `${settings.PUBLIC_BASE_URL}${deps.mountPath}`;

  const upload = async (caller: AuthClaims, req: Request): Promise<UploadedPicture> => {
    if (!isAdmin(caller)) await uploads.take(String(caller.userId));
    // Every upload in the process holds its file from the first byte to the answer: past the bound the answer
    // comes before the body is read (429 C0004 with Retry-After), never a queue that grows with the requests.
    if (!admission.enter()) throw new TooManyRequestsError(retryAfterSeconds);
    try {
      return await receiveAndStore(caller, req);
    } finally {
      admission.leave();
    }
  };

  const receiveAndStore = async (caller: AuthClaims, req: Request): Promise<UploadedPicture> => {
    // The client gone (its connection closed before the answer): its picture is not encoded.
    const clientGone = new AbortController();
    const res = req.res;
    const onClose = () => {
      if (!res?.writableFinished) clientGone.abort();
    };
    res?.once('close', onClose);
    let picture: Awaited<ReturnType<typeof encodePicture>>;
    try {
      const input = await receiveOneFile(req, settings.MEDIA_MAX_UPLOAD_BYTES);
      // The gateway's timer for the answer starts once it has handed on the body's last byte, about now: the
      // answer is due before it runs out. An upload that cannot be encoded by then is refused before it starts
      // (it waits for a slot only as long as leaves time for its expected encode), and one under way is stopped
      // at the deadline or when its client goes: no 504 from the gateway while the picture is still encoded here.
      const deadlineAt = Date.now() + settings.MEDIA_ANSWER_DEADLINE_MS;
      const { pixels } = await pictureHeader(input, limits);
      const spareMs = deadlineAt - Date.now() - cost.estimate(pixels);
      picture = await slot(
        async () => {
          const started = Date.now();
          const encoded = await encodePicture(input, limits, { deadlineAt, signal: clientGone.signal });
          cost.observe(pixels, Date.now() - started);
          return encoded;
        },
        clientGone.signal,
        spareMs,
      );
      if (clientGone.signal.aborted) throw new EncodeAbandoned('gone');
    } catch (err) {
      if ((err instanceof EncodeNotStarted && err.reason === 'busy') || (err instanceof EncodeAbandoned && err.reason === 'late')) {
        deps.logger.warn('picture refused: no time to encode it', { reason: err.message, msPerMegapixel: Math.round(cost.rate) });
        throw new ServiceBusyError(retryAfterSeconds);
      }
      if (err instanceof EncodeNotStarted || err instanceof EncodeAbandoned) throw UploadRefusals.interrupted();
      throw err;
    } finally {
      res?.off('close', onClose);
    }
    const { hash } = picture;
    // The same picture uploaded again (by anyone) is the same file: stored once, same URL.
    if (!(await store.has(fullKey(hash)))) {
      await store.put(thumbnailKey(hash), picture.thumbnail.data, WEBP);
      await store.put(fullKey(hash), picture.full.data, WEBP);
    }
    // A new upload of a known picture restarts its unused period (it is about to be used again).
    await records.updateOne({ _id: hash }, { $set: { createdAt: deps.now() }, $setOnInsert: { ownerId: caller.userId } }, { upsert: true }).exec();
    deps.logger.info('picture stored', { hash, bytes: picture.full.data.length, width: picture.full.width, height: picture.full.height });
    return {
      imageUrl: `${baseUrl}/${fullKey(hash)}`,
      thumbnailUrl: `${baseUrl}/${thumbnailKey(hash)}`,
      width: picture.full.width,
      height: picture.full.height,
    };
  };

  const serve = async (file: string, req: Request, res: Response): Promise<void> => {
    if (!PICTURE_FILE_NAME.test(file)) throw AppError.notFound();
    const hash = file.slice(0, 32);
    const etag = `"${hash}${file === thumbnailKey(hash) ? '-t' : ''}"`;
    const cacheable = () => {
      res.setHeader('etag', etag);
      res.setHeader('cache-control', IMMUTABLE_CACHE_CONTROL);
    };
    if (req.headers['if-none-match'] === etag) {
      cacheable();
      res.status(304).end();
      return;
    }
    const stored = await store.open(file);
    if (!stored) throw AppError.notFound();
    cacheable();
    res.setHeader('content-type', WEBP);
    res.setHeader('content-length', stored.length);
    // A reader that goes away mid-picture ends the answer; there is nobody left to tell.
    await pipeline(stored.body, res).catch(() => res.destroy());
  };

  return { settings, store, records, upload, serve };
}

/** Our own picture URLs end in `/images/<hash>.webp`; the thumbnail of one is `/images/<hash>.thumb.webp`. */
const OWN_PICTURE_URL = /^(https?:\/\/[^?#\s]+\/images\/[0-9a-f]{32})\.webp$/;

/** The thumbnail of one of our pictures, for list answers; any other URL comes back as it is. */
export function thumbnailUrlOf(url: string): string;
export function thumbnailUrlOf(url: string | null): string | null;
export function thumbnailUrlOf(url: string | null): string | null {
  if (url === null) return null;
  const own = OWN_PICTURE_URL.exec(url);
  return own ? `${own[1]}.thumb.webp` : url;
}

const PICTURE_NAME = /\/images\/([0-9a-f]{32})(?:\.thumb)?\.webp\b/g;

/** The hashes of our pictures a text names (an `imageUrls` entry, or a body's `<img src>`). */
export function pictureHashesIn(text: string): string[] {
  return [...text.matchAll(PICTURE_NAME)].map((match) => match[1]);
}
