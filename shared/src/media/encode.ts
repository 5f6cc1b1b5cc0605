import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '../core/wire';

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
export async function encodePicture(input: Buffer, limits: EncodeLimits, run: EncodeRun = {}): Promise<EncodedPicture> {
  const options = { limitInputPixels: limits.maxInputPixels, failOn: 'error' as const };
  await pictureHeader(input, limits);
  const now = run.now ?? Date.now;
  // What is left of the answer's time, checked before each stage: a client gone or a deadline passed stops the
  // work there. Within a stage libvips itself stops at the deadline (sharp's `timeout`, whole seconds).
  const secondsLeft = (): number => {
    if (run.signal?.aborted) throw new EncodeAbandoned('gone');
    if (run.deadlineAt === undefined) return 0;
    const left = run.deadlineAt - now();
    if (left <= 0) throw new EncodeAbandoned('late');
    return Math.max(1, Math.floor(left / 1_000));
  };
  const encode = async (source: sharp.Sharp, side: number, quality: number): Promise<EncodedRendition> => {
    const { data, info } = await source
      .timeout({ seconds: secondsLeft() })
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .webp({ quality })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  };
  const stopped = (err: unknown): EncodeAbandoned | undefined => {
    if (err instanceof EncodeAbandoned) return err;
    if (err instanceof Error && /timeout/i.test(err.message)) return new EncodeAbandoned('late');
    return undefined;
  };
  let full: EncodedRendition;
  try {
    full = await encode(sharp(input, options).rotate(), limits.maxSide, 82);
  } catch (err) {
    const abandoned = stopped(err);
    if (abandoned) throw abandoned;
    // A header that promised a picture whose data then does not decode (truncated, corrupt).
    if (err instanceof Error && /pixel limit/i.test(err.message)) throw PictureRefusals.tooManyPixels();
    throw PictureRefusals.notAnImage();
  }
  // The thumbnail comes from the full rendition (at most 2560 px, already oriented and without metadata), so the
  // upload's own pixels, the largest thing in memory, are decoded once per upload, not once per rendition.
  let thumbnail: EncodedRendition;
  try {
    thumbnail = await encode(sharp(full.data), limits.thumbnailSide, 75);
  } catch (err) {
    throw stopped(err) ?? err;
  }
  const hash = createHash('sha256').update(full.data).digest('hex').slice(0, 32);
  return { hash, full, thumbnail };
}

/** When an encode must be over, and whether its client is still there (`encodePicture`'s third argument). */
export interface EncodeRun {
  /** Epoch ms by which the picture must be encoded; past it the work stops (`EncodeAbandoned('late')`). */
  deadlineAt?: number;
  /** Aborted when the client has gone: the work stops at the next stage (`EncodeAbandoned('gone')`). */
  signal?: AbortSignal;
  now?: () => number;
}

/** Why an encode under way was given up: its deadline passed (`late`) or its client went away (`gone`). */
export class EncodeAbandoned extends Error {
  constructor(readonly reason: 'late' | 'gone') {
    super(`encode abandoned: ${reason}`);
  }
}

/**
 * The picture's header, read without decoding anything: its pixel count, or the C0002 refusal of something
 * that is not an accepted picture or has more pixels than `maxInputPixels`.
 */
export async function pictureHeader(input: Buffer, limits: Pick<EncodeLimits, 'maxInputPixels'>): Promise<{ pixels: number }> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(input, { limitInputPixels: limits.maxInputPixels, failOn: 'error' }).metadata();
  } catch {
    throw PictureRefusals.notAnImage();
  }
  if (!ACCEPTED_FORMATS.has(metadata.format)) throw PictureRefusals.notAnImage();
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  if (pixels > limits.maxInputPixels) throw PictureRefusals.tooManyPixels();
  return { pixels };
}

/**
 * What encoding costs in this process, learned from the encodes it has done: milliseconds per megapixel of the
 * upload, a moving average (so a busy machine raises it and a quiet one brings it down again), used to judge
 * whether an upload can still be encoded before its answer is due. Starts from `initialMsPerMegapixel`.
 */
export class EncodeCost {
  private msPerMegapixel: number;

  constructor(
    initialMsPerMegapixel = 60,
    /** The weight of the newest encode in the average. */
    private readonly weight = 0.3,
  ) {
    this.msPerMegapixel = initialMsPerMegapixel;
  }

  /** The expected milliseconds for a picture of `pixels`, with a quarter's margin and a fixed 50 ms besides. */
  estimate(pixels: number): number {
    return Math.ceil((pixels / 1e6) * this.msPerMegapixel * 1.25 + 50);
  }

  observe(pixels: number, elapsedMs: number): void {
    // Below a megapixel the fixed costs dominate: such encodes say little about the rate.
    if (pixels < 1e6) return;
    const rate = elapsedMs / (pixels / 1e6);
    this.msPerMegapixel = this.msPerMegapixel * (1 - this.weight) + rate * this.weight;
  }

  get rate(): number {
    return this.msPerMegapixel;
  }
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
export function encodeSlots(options: EncodeSlotOptions): <T>(work: () => Promise<T>, signal?: AbortSignal, maxWaitMs?: number) => Promise<T> {
  let running = 0;
  const waiting: Array<{ start: () => void }> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next.start();
    else running--;
  };
  const slot = (signal: AbortSignal | undefined, maxWaitMs: number): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new EncodeNotStarted('gone'));
    if (running < options.limit) {
      running++;
      return Promise.resolve();
    }
    // No time to wait at all: refused at once rather than queued.
    if (maxWaitMs <= 0) return Promise.reject(new EncodeNotStarted('busy'));
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
      const timer = setTimeout(() => leave('busy'), maxWaitMs);
      signal?.addEventListener('abort', gone, { once: true });
      waiting.push(waiter);
    });
  };
  return async (work, signal, maxWaitMs) => {
    // A caller's own bound (the time its answer has left) shortens the wait, never lengthens it.
    await slot(signal, Math.min(options.maxWaitMs, maxWaitMs ?? options.maxWaitMs));
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
