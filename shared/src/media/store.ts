import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import mongoose, { type Connection } from 'mongoose';
import type { MediaSettings } from './config';

export interface StoredObject {
  body: Readable;
  length: number;
}

/** Where a service's picture files live. Keys are content names (`<hash>.webp`): a key's bytes never change. */
export interface PictureStore {
  readonly kind: MediaSettings['MEDIA_STORE'];
  has(key: string): Promise<boolean>;
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** undefined when there is no such picture. */
  open(key: string): Promise<StoredObject | undefined>;
  remove(key: string): Promise<void>;
}

/** GridFS in the service's own database (`pictures.files` / `pictures.chunks`), the default: nothing new to run. */
export function gridFsPictureStore(connection: Connection): PictureStore {
  let bucket: mongoose.mongo.GridFSBucket | undefined;
  const files = () => {
    if (!connection.db) throw new Error('GridFS picture store: the connection has no database yet');
    return (bucket ??= new mongoose.mongo.GridFSBucket(connection.db, { bucketName: 'pictures' }));
  };
  const find = (key: string) => files().find({ filename: key }, { limit: 1 }).toArray();
  return {
    kind: 'gridfs',
    has: async (key) => (await find(key)).length > 0,
    put: (key, data, contentType) =>
      new Promise((resolve, reject) => {
        const upload = files().openUploadStream(key, { metadata: { contentType } });
        upload.on('error', reject);
        upload.once('finish', () => resolve());
        upload.end(data);
      }),
    open: async (key) => {
      const [file] = await find(key);
      if (!file) return undefined;
      return { body: files().openDownloadStream(file._id), length: file.length };
    },
    remove: async (key) => {
      // Two uploads of the same picture racing may both have stored it: every copy goes.
      for (const file of await files().find({ filename: key }).toArray()) await files().delete(file._id);
    },
  };
}

/**
 * An S3-compatible bucket (`MEDIA_STORE=s3`): the service writes; objects carry their content type and the
 * immutable cache header, so the bucket (or a CDN in front of it, `MEDIA_PUBLIC_BASE_URL`) can serve them.
 */
export function s3PictureStore(settings: MediaSettings, defaultPrefix: string): PictureStore {
  const bucket = settings.MEDIA_S3_BUCKET;
  if (!bucket) throw new Error('MEDIA_STORE=s3 needs MEDIA_S3_BUCKET');
  if (Boolean(settings.MEDIA_S3_ACCESS_KEY_ID) !== Boolean(settings.MEDIA_S3_SECRET_ACCESS_KEY)) {
    throw new Error('MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY go together');
  }
  const client = new S3Client({
    region: settings.MEDIA_S3_REGION,
    endpoint: settings.MEDIA_S3_ENDPOINT,
    // Other S3-compatible servers seldom have a DNS name per bucket.
    forcePathStyle: settings.MEDIA_S3_ENDPOINT !== undefined,
    // Checksums only where S3 requires them: the SDK's newer default (a CRC32 header on every upload) is refused
    // as not implemented by many S3-compatible servers, and the bytes are already checked by their content hash.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials:
      settings.MEDIA_S3_ACCESS_KEY_ID && settings.MEDIA_S3_SECRET_ACCESS_KEY
        ? { accessKeyId: settings.MEDIA_S3_ACCESS_KEY_ID, secretAccessKey: settings.MEDIA_S3_SECRET_ACCESS_KEY }
        : undefined,
  });
  const prefix = settings.MEDIA_S3_PREFIX ?? defaultPrefix;
  const objectKey = (key: string) => `${prefix}${key}`;
  const missing = (err: unknown) =>
    err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');
  return {
    kind: 's3',
    has: async (key) => {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return true;
      } catch (err) {
        if (missing(err)) return false;
        throw err;
      }
    },
    put: async (key, data, contentType) => {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: data, ContentType: contentType, CacheControl: IMMUTABLE_CACHE_CONTROL }),
      );
    },
    open: async (key) => {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        if (!(answer.Body instanceof Readable)) throw new Error('S3 answered a body that is not a Node stream');
        return { body: answer.Body, length: answer.ContentLength ?? 0 };
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    },
    remove: async (key) => {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },
  };
}

/** A picture's bytes never change under its name. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function pictureStoreFor(settings: MediaSettings, connection: Connection, service: string): PictureStore {
  return settings.MEDIA_STORE === 's3' ? s3PictureStore(settings, `${service}/images/`) : gridFsPictureStore(connection);
}
