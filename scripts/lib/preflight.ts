/**
 * What `npm start` checks before it builds or launches anything, so a taken port or a missing tool is one clear
 * line within a second or two instead of a Java stack trace a minute later: the fixed ports it will listen on,
 * `nats-server` when no NATS is given or running, Java when it must start the local store, and Maven when the
 * store's jar still has to be built (the first start; then Maven Central is needed once).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { javaTool, jarIsFresh } from './java-tool';
import { portOpen } from './server-process';
import { DEFAULT_PORTS, SERVICES } from './system';

export interface Preflight {
  /** One sentence per problem; empty when `npm start` can go on. */
  problems: string[];
  /** What the start will do about the stores and the first build, for its opening lines. */
  notes: string[];
}

/** The port the local store uses (`DEV_MONGO_PORT`, default 27017) and NATS's (`DEV_NATS_PORT`, default 4222). */
export const devMongoPort = (env = process.env) => Number(env.DEV_MONGO_PORT ?? 27017);
export const devNatsPort = (env = process.env) => Number(env.DEV_NATS_PORT ?? 4222);

export function onPath(command: string, env = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, command))) return path.join(dir, command);
  }
  return undefined;
}

export async function preflight(env: NodeJS.ProcessEnv = process.env): Promise<Preflight> {
  const problems: string[] = [];
  const notes: string[] = [];
  const housesInstances = Number(env.HOUSES_INSTANCES ?? 1);
  const ports: Array<[number, string]> = [[Number(env.PORT ?? DEFAULT_PORTS.gateway), 'the gateway (set PORT to use another)']];
  for (const service of SERVICES) {
    const count = service === 'houses' ? housesInstances : 1;
    for (let i = 0; i < count; i++) ports.push([DEFAULT_PORTS[service] + i * 10, `the ${service} service`]);
  }
  const givenStore = Boolean(env.MONGODB_URI?.trim());
  const mongod = onPath('mongod', env);
  if (!givenStore) ports.push([devMongoPort(env), 'the local store (set MONGODB_URI to use a running MongoDB, or DEV_MONGO_PORT)']);
  const taken = await Promise.all(ports.map(async ([port]) => portOpen('127.0.0.1', port)));
  ports.forEach(([port, what], i) => {
    if (taken[i]) problems.push(`port ${port} is taken: npm start needs it for ${what}; stop what listens there (\`ss -ltnp 'sport = :${port}'\` shows it)`);
  });

  if (env.NATS_URL) notes.push(`NATS: given by NATS_URL (${env.NATS_URL})`);
  else if (await portOpen('127.0.0.1', devNatsPort(env))) notes.push(`NATS: found one running on 127.0.0.1:${devNatsPort(env)}, using it`);
  else if (onPath('nats-server', env)) notes.push(`NATS: none running, starting nats-server on 127.0.0.1:${devNatsPort(env)}`);
  else problems.push(`nats-server is not installed and no NATS runs on 127.0.0.1:${devNatsPort(env)}: \`apt-get install -y nats-server\` (or set NATS_URL)`);

  if (givenStore) notes.push('store: given by MONGODB_URI');
  else if (mongod) notes.push(`store: starting ${mongod} (data in .data/)`);
  else {
    const java = env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin', 'java') : onPath('java', env);
    if (!java || !existsSync(java))
      problems.push('Java is not installed (the local store is a Java program): `apt-get install -y openjdk-17-jdk-headless maven` (or set MONGODB_URI)');
    const tool = javaTool('dev-mongo');
    if (jarIsFresh(tool)) notes.push('store: starting the local MongoDB-protocol server (tools/dev-mongo, data in .data/)');
    else if (!onPath('mvn', env))
      problems.push('Maven is not installed, and the local store (tools/dev-mongo) must be built once: `apt-get install -y maven` (or set MONGODB_URI)');
    else {
      const cached = existsSync(path.join(env.HOME ?? os.homedir(), '.m2', 'repository', 'de', 'bwaldvogel', 'mongo-java-server'));
      notes.push(
        cached
          ? 'store: building the local MongoDB-protocol server (tools/dev-mongo) with Maven from its local cache, then starting it'
          : 'store: first start: Maven builds the local store (tools/dev-mongo) and downloads its plugins and libraries from Maven Central once (into ~/.m2)',
      );
    }
  }
  return { problems, notes };
}
