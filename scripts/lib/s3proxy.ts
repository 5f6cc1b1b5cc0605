/**
 * A local S3-compatible server for tests and benchmarks of `MEDIA_STORE=s3`: S3Proxy (Maven Central, its in-memory
 * `transient` backend) built into tools/s3proxy/target/s3proxy.jar and started like dev-mongo (scripts/lib/java-tool.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { javaTool, launchJavaTool } from './java-tool';
import { freePort, waitForPort } from './server-process';

export interface RunningS3 {
  /** `http://127.0.0.1:<port>`, for `MEDIA_S3_ENDPOINT`. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

const S3PROXY = javaTool('s3proxy');
const READY_TIMEOUT_MS = 90_000;

export async function startS3Proxy(opts: { log?: (line: string) => void } = {}): Promise<RunningS3> {
  const log = opts.log ?? (() => undefined);
  const host = '127.0.0.1';
  const port = await freePort(host);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'binzip-s3proxy-'));
  const credentials = { accessKeyId: 'binzip-test', secretAccessKey: 'binzip-test-secret' };
  const properties = path.join(dir, 's3proxy.conf');
  await fs.promises.writeFile(
    properties,
    [
      `s3proxy.endpoint=http://${host}:${port}`,
      's3proxy.authorization=aws-v2-or-v4',
      `s3proxy.identity=${credentials.accessKeyId}`,
      `s3proxy.credential=${credentials.secretAccessKey}`,
      'jclouds.provider=transient',
      'jclouds.identity=unused',
      'jclouds.credential=unused',
    ].join('\n'),
  );
  const { child, proc } = await launchJavaTool(S3PROXY, {
    jvmFlags: ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xms32m', '-Xmx384m'],
    args: ['--properties', properties],
    label: 's3proxy',
    log,
  });
  child.stdout?.on('data', (chunk: Buffer) => proc.addOutput(chunk));
  const stop = async () => {
    await proc.stop();
    await fs.promises.rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(
      host,
      port,
      READY_TIMEOUT_MS,
      () => proc.exited,
      () => proc.stderrTail(),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  proc.unref();
  log(`[s3proxy] ready at http://${host}:${port}`);
  return { endpoint: `http://${host}:${port}`, ...credentials, stop };
}
