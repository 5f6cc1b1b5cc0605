/**
 * Picture uploads through the gateway on an S3-compatible bucket (`MEDIA_STORE=s3`): a real S3Proxy server this
 * file starts (built from Maven Central like dev-mongo), one bucket both services share under their prefixes.
 * Needs the built processes (`npx tsc -b`).
 */
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Proxy, type RunningS3 } from '../../scripts/lib/s3proxy';
import { picturesSuite } from '../support/pictures';

jest.setTimeout(180_000);

const BUCKET = 'binzip-pictures';
let s3: RunningS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3Proxy();
  client = new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

picturesSuite('pics3', {
  env: () => ({
    MEDIA_STORE: 's3',
    MEDIA_S3_BUCKET: BUCKET,
    MEDIA_S3_REGION: 'us-east-1',
    MEDIA_S3_ENDPOINT: s3.endpoint,
    MEDIA_S3_ACCESS_KEY_ID: s3.accessKeyId,
    MEDIA_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  }),
  holds: async (_e2e, service, key) => {
    try {
      await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${service}/images/${key}` }));
      return true;
    } catch {
      return false;
    }
  },
});
