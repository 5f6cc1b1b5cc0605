import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitForPort } from './server-process';

/**
 * A NATS JetStream cluster of the machine's `nats-server` on loopback (issue 37): `nodes` servers named n1, n2…,
 * each with its own client port, cluster (route) port and store, routes to every other one. Streams made with
 * `NATS_REPLICAS=3` are kept on all three and survive one lost node. Used by the scaled-out test and
 * `npm run bench:faults`; production runs the maintained chart (deploy/kubernetes/stores/nats-values.yaml).
 */
export interface NatsNode {
  /** The server's name, as stream info gives a stream's leader and replicas (`n1`…). */
  name: string;
  port: number;
  clusterPort: number;
  uri: string;
  child(): ChildProcess | undefined;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** Starts the node again with its store (after stop, or after a SIGKILL). */
  start(): Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's client address, comma-separated: what `NATS_URL` takes. */
  uri: string;
  stop(): Promise<void>;
}

export async function startNatsCluster(options: {
  storeDir: string;
  nodes?: number;
  /** First client port (n1 on it, n2 on the next…); free ports when absent. */
  basePort?: number;
  /** First cluster port; free ports when absent. */
  baseClusterPort?: number;
  clusterName?: string;
  /** How many nodes to start now (the first ones); the others wait for their `start()`, as in a cluster still forming. */
  startNow?: number;
}): Promise<NatsCluster> {
  const count = options.nodes ?? 3;
  const host = '127.0.0.1';
  const choosesPorts = options.basePort === undefined || options.baseClusterPort === undefined;
  // Ports found free may be taken by another process (a parallel test's server) before nats-server binds them:
  // then the cluster is laid out again on other ports.
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    const clusterPorts: number[] = [];
    for (let i = 0; i < count; i++) {
      ports.push(options.basePort !== undefined ? options.basePort + i : await freePort(host));
      clusterPorts.push(options.baseClusterPort !== undefined ? options.baseClusterPort + i : await freePort(host));
    }
    const nodes = layOut(options, host, ports, clusterPorts);
    try {
      await Promise.all(nodes.slice(0, options.startNow ?? count).map((n) => n.start()));
    } catch (err) {
      await Promise.all(nodes.map((n) => n.stop()));
      if (choosesPorts && attempt < 3 && err instanceof Error && /address already in use/i.test(err.message)) continue;
      throw err;
    }
    return {
      nodes,
      uri: nodes.map((n) => n.uri).join(','),
      stop: async () => {
        await Promise.all(nodes.map((n) => n.stop()));
      },
    };
  }
}

/** The cluster's nodes on these ports, their configuration written, none started. */
function layOut(options: { storeDir: string; clusterName?: string }, host: string, ports: number[], clusterPorts: number[]): NatsNode[] {
  mkdirSync(options.storeDir, { recursive: true });
  const nodes: NatsNode[] = [];
  for (let i = 0; i < ports.length; i++) {
    const name = `n${i + 1}`;
    const storeDir = path.join(options.storeDir, name);
    const configFile = path.join(options.storeDir, `${name}.conf`);
    const routes = clusterPorts.filter((_, j) => j !== i).map((p) => `nats-route://${host}:${p}`);
    writeFileSync(
      configFile,
      [
        `server_name: ${name}`,
        `listen: ${host}:${ports[i]}`,
        `jetstream {\n  store_dir: "${storeDir}"\n  max_file_store: ${1024 * 1024 * 1024}\n}`,
        `cluster {\n  name: ${options.clusterName ?? 'binzip'}\n  listen: ${host}:${clusterPorts[i]}\n  routes: [\n    ${routes.join('\n    ')}\n  ]\n}`,
        '',
      ].join('\n'),
    );
    let child: ChildProcess | undefined;
    const port = ports[i];
    const node: NatsNode = {
      name,
      port,
      clusterPort: clusterPorts[i],
      uri: `nats://${host}:${port}`,
      child: () => child,
      start: async () => {
        const launched = spawn('nats-server', ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
        child = launched;
        // The server's last words, for a start that fails (its log goes to standard error).
        let output = '';
        launched.stderr?.on('data', (chunk: Buffer) => {
          output = (output + chunk.toString()).slice(-4_000);
        });
        const failed = new Promise<never>((_resolve, reject) =>
          launched.once('error', (err) => reject(new Error(`could not start nats-server (install the Debian package nats-server): ${err.message}`))),
        );
        await Promise.race([
          waitForPort(
            host,
            port,
            15_000,
            () => launched.exitCode !== null,
            () => output,
          ),
          failed,
        ]);
      },
      stop: async () => {
        const running = child;
        child = undefined;
        if (!running || running.exitCode !== null || running.signalCode !== null) return;
        const exited = new Promise((r) => running.once('exit', r));
        // A frozen node (SIGSTOP) must be woken to hear the SIGTERM.
        running.kill('SIGCONT');
        running.kill('SIGTERM');
        const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      },
    };
    nodes.push(node);
  }
  return nodes;
}
