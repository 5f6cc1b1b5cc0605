import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunningStore } from './mongo';
import { freePort, portOpen, waitForPort } from './server-process';

/**
 * Starts the machine's `nats-server` with JetStream on loopback (tests that stop and restart NATS use this).
 * `maxFileStoreMiB` gives its JetStream store a ceiling, like a small production volume; `extraConfig` is added to
 * its configuration file as it is (e.g. accounts with their own JetStream limits).
 */
export async function startNatsServer(options: {
  storeDir: string;
  port?: number;
  host?: string;
  maxFileStoreMiB?: number;
  extraConfig?: string;
}): Promise<RunningStore & { port: number; restart(): Promise<void>; signal(signal: NodeJS.Signals): void }> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port || (await freePort(host));
  mkdirSync(options.storeDir, { recursive: true });
  const args = ['-a', host, '-p', String(port), '-js', '-sd', options.storeDir];
  if (options.maxFileStoreMiB !== undefined || options.extraConfig !== undefined) {
    // The store's ceiling has no command-line flag: a configuration file beside the store carries it.
    const configFile = `${options.storeDir}.conf`;
    const ceiling = options.maxFileStoreMiB !== undefined ? `jetstream {\n  max_file_store: ${options.maxFileStoreMiB * 1024 * 1024}\n}\n` : '';
    writeFileSync(configFile, `${ceiling}${options.extraConfig ?? ''}\n`);
    args.push('-c', configFile);
  }
  let child: ChildProcess | undefined;
  const launch = async () => {
    const launched = spawn('nats-server', args, { stdio: 'ignore' });
    child = launched;
    // Without a listener, a missing binary (ENOENT) is an uncaught 'error' event that kills the launcher.
    const failed = new Promise<never>((_resolve, reject) =>
      launched.once('error', (err) => reject(new Error(`could not start nats-server (install the Debian package nats-server): ${err.message}`))),
    );
    await Promise.race([
      waitForPort(
        host,
        port,
        15_000,
        () => launched.exitCode !== null,
        () => '',
      ),
      failed,
    ]);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await launch();
  return {
    uri: `nats://${host}:${port}`,
    port,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    /** SIGSTOP / SIGCONT: a node that freezes with its clients' connections open. */
    signal: (signal) => {
      child?.kill(signal);
    },
  };
}

/**
 * `NATS_URL` when given; else a server already on 127.0.0.1:4222 (`DEV_NATS_PORT`); else one started for this
 * run. `how` says which, for `npm start`'s summary.
 */
export async function ensureNats(options: { dataDir: string }): Promise<RunningStore & { how: 'given' | 'found' | 'started' }> {
  const port = Number(process.env.DEV_NATS_PORT ?? 4222);
  if (process.env.NATS_URL) return { uri: process.env.NATS_URL, stop: async () => undefined, how: 'given' };
  if (await portOpen('127.0.0.1', port)) return { uri: `nats://127.0.0.1:${port}`, stop: async () => undefined, how: 'found' };
  return { ...(await startNatsServer({ storeDir: path.join(options.dataDir, 'nats'), port })), how: 'started' };
}
