import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '../core/errors';

// libvips' operation cache keeps decoded images around for reuse, which uploads never have: memory would grow
// with traffic instead of staying bounded by the uploads under way.
sharp.cache(false);

/** Formats decoded from an upload (the declared type is never trusted). HEIF covers AVIF (and HEIC where libheif can). */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif']);

export const PictureRefusals = {
  notAnImage: () => new AppError('C0002', '이미지 파일(JPEG, PNG, WebP, HEIC/AVIF)만 올릴 수 있습니다.'),
  tooManyPixels: () => new AppError('C0002', '이미지의 해상도가 너무 큽니다.'),
} as const;

export interface EncodeLimits {
  maxInputPixels: number;
  maxSide: number;
  thumbnailSide: number;
}

export interface EncodedRendition {
  data: Buffer;
  width: number;
  height: number;
}

export interface EncodedPicture {
  /** Hex of the first 128 bits of the full rendition's SHA-256: the picture's name and ETag. */
  hash: string;
  full: EncodedRendition;
  thumbnail: EncodedRendition;
}

/**
 * Decodes `input` as a picture and re-encodes it as WebP: oriented by its EXIF orientation, then every metadata
 * block dropped (EXIF with GPS, XMP, IPTC, comments; an ICC profile is applied by converting to sRGB, which
 * WebP without a profile means), bounded to `maxSide` on its long side, plus a `thumbnailSide` thumbnail. Only
 * the first frame of an animation is kept. Anything that is not an accepted raster picture is C0002.
 */
export async function encodePicture(input: Buffer, limits: EncodeLimits): Promise<EncodedPicture> {
  const options = { limitInputPixels: limits.maxInputPixels, failOn: 'error' as const };
  let metadata: sharp.Metadata;
  try {
    // Reads the header only: the pixel count is judged before anything is decoded.
    metadata = await sharp(input, options).metadata();
  } catch {
    throw PictureRefusals.notAnImage();
  }
  if (!ACCEPTED_FORMATS.has(metadata.format)) throw PictureRefusals.notAnImage();
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > limits.maxInputPixels) throw PictureRefusals.tooManyPixels();
  const encode = async (source: sharp.Sharp, side: number, quality: number): Promise<EncodedRendition> => {
    const { data, info } = await source
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .webp({ quality })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  };
  let full: EncodedRendition;
  try {
    full = await encode(sharp(input, options).rotate(), limits.maxSide, 82);
  } catch (err) {
    // A header that promised a picture whose data then does not decode (truncated, corrupt).
    if (err instanceof Error && /pixel limit/i.test(err.message)) throw PictureRefusals.tooManyPixels();
    throw PictureRefusals.notAnImage();
  }
  // The thumbnail comes from the full rendition (at most 2560 px, already oriented and without metadata), so the
  // upload's own pixels, the largest thing in memory, are decoded once per upload, not once per rendition.
  const thumbnail = await encode(sharp(full.data), limits.thumbnailSide, 75);
  const hash = createHash('sha256').update(full.data).digest('hex').slice(0, 32);
  return { hash, full, thumbnail };
}

/** Why an encode did not start: too long a wait (`busy`) or nobody left to answer (`gone`). */
export class EncodeNotStarted extends Error {
  constructor(readonly reason: 'busy' | 'gone') {
    super(`encode not started: ${reason}`);
  }
}

export interface EncodeSlotOptions {
  /** Encodes that may run at once (each holds a decoded picture). */
  limit: number;
  /** The longest an upload waits for a slot before it is refused (`EncodeNotStarted('busy')`). */
  maxWaitMs: number;
}

/**
 * At most `limit` encodes at once; the rest wait in arrival order, each at most `maxWaitMs`, and a waiter whose
 * `signal` aborts (its client went away) leaves the queue: no picture is encoded for nobody, and no upload waits
 * past the time its client (or the gateway) waits for the answer.
 */
export function encodeSlots(options: EncodeSlotOptions): <T>(work: () => Promise<T>, signal?: AbortSignal) => Promise<T> {
  let running = 0;
  const waiting: Array<{ start: () => void }> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next.start();
    else running--;
  };
  const slot = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new EncodeNotStarted('gone'));
    if (running < options.limit) {
      running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (reason: 'busy' | 'gone') => {
        const at = waiting.indexOf(waiter);
        if (at >= 0) waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        reject(new EncodeNotStarted(reason));
      };
      const gone = () => leave('gone');
      const waiter = {
        start: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', gone);
          resolve();
        },
      };
      const timer = setTimeout(() => leave('busy'), options.maxWaitMs);
      signal?.addEventListener('abort', gone, { once: true });
      waiting.push(waiter);
    });
  };
  return async (work, signal) => {
    await slot(signal);
    try {
      return await work();
    } finally {
      release();
    }
  };
}

/**
 * At most `limit` uploads in a process at once, from the first byte read to the answer (each holds its file, up
 * to 10 MB, while it is read, waits and is encoded): past it an upload is refused before its body is read.
 */
export function uploadAdmission(limit: number): { enter(): boolean; leave(): void; readonly inside: number } {
  let inside = 0;
  return {
    enter: () => {
      if (inside >= limit) return false;
      inside++;
      return true;
    },
    leave: () => {
      inside = Math.max(0, inside - 1);
    },
    get inside() {
      return inside;
    },
  };
}
