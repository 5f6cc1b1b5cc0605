/**
 * `npm run bench:faults` (issue 37 item 4): losing one of anything under load. Starts a three-node NATS JetStream
 * cluster (streams on all three, `NATS_REPLICAS=3`), two of every service and two gateways on loopback, then, under
 * a steady mix of reads, sign-ins and comment writes sent alternately through both gateways, applies each fault in
 * turn: SIGKILL, and separately SIGSTOP for `--freeze` seconds (30 by default), of one replica of each service,
 * one gateway and one NATS node (the COMMUNITY stream's leader). Counted per fault, once everything has settled:
 *
 * - acknowledged writes lost: comments answered 200 that the comment list does not show;
 * - notifications lost or duplicated: each acknowledged comment must be in the board author's inbox exactly once;
 * - failed requests by kind, and whether they were in flight on the lost copy.
 *
 * The load client acts as the load balancer in front of the gateways would: a gateway whose connection fails or
 * that does not answer within 15 s is left out for 5 s, and a request it failed is counted against it (in flight on the lost
 * copy). The launcher restarts a killed service or gateway after 1 s, as Kubernetes would; a killed NATS node is
 * started again after `--freeze` seconds. Ports: services 7101-7115, gateways 7150-7151, NATS 4301-4303 (cluster
 * 6301-6303). Prints a Markdown table.
 *
 * Every request carries its own `x-request-id`; for each failed one the table is followed by what answered it (the
 * envelope's message, `retry-after`) and the log lines of any process that logged that id (`--log-level warn` by
 * default), so a 503 can be told apart: the gateway finding no instance to use, or a replica answering it itself.
 * The last phase kills the COMMUNITY stream's leader and leaves it down (`--leader-down-seconds`, 0 skips it): the
 * time until every comment acknowledged after the kill is notified says whether the two nodes left elect a leader.
 * `--only accounts,gateway,nats` keeps the phases of those parts (and the baseline).
 *
 *   npm run bench:faults -- [--freeze 30] [--settle 8] [--workers 4] [--log-level warn] [--leader-down-seconds 60]
 *                           [--only <service|gateway|nats>,…]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountsStream, EventBus, connectMongo, createLogger, generateDevKeyPair } from '../shared/src';
import { numberArg as arg, textArg } from './lib/bench-stores';
import { onceOrInterrupted } from './lib/cleanup';
import { startMongo } from './lib/mongo';
import { startNatsCluster, type NatsCluster } from './lib/nats-cluster';
import { SERVICES, startSystem, type ProcessHandle, type RunningSystem } from './lib/system';

const ADMINS = [1, 2, 3].map((n) => ({
  userName: `faultadmin${n}`,
  password: 'Adm1nPass!',
  nick_name: `장애관리자${n}`,
  phone_num: `0107300000${n}`,
  email: `faultadmin${n}@example.com`,
  userType: 'WEB',
}));

type Kind = 'read' | 'signIn' | 'write';
interface Outcome {
  kind: Kind;
  ok: boolean;
  /** The gateway the request went through (0 or 1). */
  gateway: number;
  status: number | 'network' | 'timeout';
  at: number;
  /** Failed ones: what was asked and what answered (the envelope's message, retry-after). */
  failure?: { requestId: string; path: string; message?: string; retryAfter?: string };
}

interface Phase {
  name: string;
  started: number;
  ended: number;
  /** Comment contents answered 200 during the phase. */
  acknowledged: string[];
  outcomes: Outcome[];
  /** The gateway lost in this phase, when it is a gateway. */
  lostGateway?: number;
  /** One entry per failed request: what answered it. */
  details: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const freezeSeconds = arg('freeze', 30);
  const settleSeconds = arg('settle', 8);
  const workers = arg('workers', 4);
  const leaderDownSeconds = arg('leader-down-seconds', 60);
  const logLevel = textArg('log-level', 'warn');
  const only = new Set(textArg('only', '').split(',').filter(Boolean));
  const wanted = (part: string) => only.size === 0 || only.has(part);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-faults-'));
  const log = (line: string) => console.log(`[faults] ${line}`);
  const keys = generateDevKeyPair();
  const prefix = `faults${Date.now().toString(36)}`;
  const mongo = await startMongo({ persistent: false, dataDir });
  let cluster: NatsCluster | undefined;
  let system: RunningSystem | undefined;
  const cleanUp = onceOrInterrupted(async () => {
    await system?.stop().catch(() => undefined);
    if (cluster) {
      for (const node of cluster.nodes) node.child()?.kill('SIGCONT');
      const bus = await EventBus.connect({ url: cluster.uri, prefix, name: 'faults-cleanup', logger: createLogger('faults', 'silent') }).catch(() => undefined);
      await bus?.deleteStreams().catch(() => undefined);
      await bus?.close();
      await cluster.stop();
    }
    for (const service of SERVICES) {
      const connection = await connectMongo(mongo.uri, `${prefix}_${service}`).catch(() => undefined);
      await connection?.dropDatabase();
      await connection?.close();
    }
    await mongo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  try {
    cluster = await startNatsCluster({ storeDir: path.join(dataDir, 'nats'), basePort: 4301, baseClusterPort: 6301 });
    log(`NATS cluster at ${cluster.uri}`);
    const probe = await EventBus.connect({
      url: cluster.uri,
      prefix,
      name: 'faults-probe',
      logger: createLogger('faults', 'silent'),
      streams: { replicas: 3 },
      // A new cluster answers JetStream requests only once it has elected its meta leader.
      patienceMs: 60_000,
    });
    await probe.ensureStreamsPatiently([accountsStream], 60_000);
    system = await startSystem({
      mongoUri: mongo.uri,
      natsUrl: cluster.uri,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      instances: Object.fromEntries(SERVICES.map((name) => [name, 2])),
      gateways: 2,
      // Off the default ports (npm start may be running): 71xx for the services in the list's order, 7150 the gateway.
      ports: { gateway: 7150, ...Object.fromEntries(SERVICES.map((name, index) => [name, 7101 + index])) },
      dbPrefix: `${prefix}_`,
      natsPrefix: prefix,
      env: {
        LOG_LEVEL: logLevel,
        NATS_REPLICAS: '3',
        BCRYPT_COST: '4',
        OUTBOX_INTERVAL_MS: '500',
        CEILING_MEMBER_WRITES: '0',
        RATE_LIMIT_SIGN_IN_MAX: '100000',
        ADMIN_BOOTSTRAP: JSON.stringify(ADMINS),
        DEV_OUTBOX_DIR: path.join(dataDir, 'outbox'),
      },
      log,
      readyTimeoutMs: 120_000,
    });
    const running = system;
    const gateways = running.gateways.map((g) => g.url);
    log(`gateways: ${gateways.join(' ')}`);

    // --- the load ---
    const call = async (gateway: number, method: string, urlPath: string, token?: string, body?: unknown, requestId?: string) => {
      const res = await fetch(`${gateways[gateway]}${urlPath}`, {
        method,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: token } : {}),
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after') ?? undefined,
        body: JSON.parse(text) as { code: string; message?: string; data: unknown },
      };
    };
    const signIn = async (admin: (typeof ADMINS)[number], gateway = 0) => {
      const res = await call(gateway, 'POST', '/api/v1/users/sign-in', undefined, { userName: admin.userName, password: admin.password });
      if (res.status !== 200) throw new Error(`sign-in of ${admin.userName}: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body.data as { access_token: string }).access_token;
    };
    const author = await signIn(ADMINS[0]);
    const writers = [await signIn(ADMINS[1]), await signIn(ADMINS[2])];
    const board = await call(0, 'POST', '/api/v1/boards', author, {
      title: '장애 시험 글',
      code: '<p>빈집</p>',
      category: null,
      imageUrls: [],
      prefixCategory: 'DEFAULT',
      fixed: false,
    });
    if (board.status !== 200) throw new Error(`board: ${board.status} ${JSON.stringify(board.body)}`);
    const boardId = board.body.data as number;
    log(`board ${boardId}`);

    let current: Phase | undefined;
    const phases: Phase[] = [];
    const downUntil = [0, 0];
    let turn = 0;
    let written = 0;
    let stopLoad = false;
    const pickGateway = () => {
      const now = Date.now();
      for (let i = 0; i < gateways.length; i++) {
        const g = turn++ % gateways.length;
        if (downUntil[g] <= now) return g;
      }
      return turn++ % gateways.length;
    };
    const reads = ['/api/v1/boards?prefix=DEFAULT', `/api/v1/comments/${boardId}`, `/api/v1/boards/${boardId}`, '/api/v1/houses', '/api/v1/record/hot'];
    const worker = async (w: number) => {
      for (let i = 0; !stopLoad; i++) {
        const roll = (i * 7 + w * 13) % 20;
        const kind: Kind = roll < 14 ? 'read' : roll < 17 ? 'signIn' : 'write';
        const gateway = pickGateway();
        const phase = current;
        const content = `댓글 ${w}-${i}-${++written}`;
        const requestId = `faults-${w}-${i}`;
        const path = kind === 'read' ? reads[i % reads.length] : kind === 'signIn' ? '/api/v1/users/sign-in' : '/api/v1/comments';
        let status: Outcome['status'];
        let failure: Outcome['failure'];
        try {
          const res =
            kind === 'read'
              ? await call(gateway, 'GET', path, undefined, undefined, requestId)
              : kind === 'signIn'
                ? await call(gateway, 'POST', path, undefined, { userName: ADMINS[1 + (i % 2)].userName, password: ADMINS[1].password }, requestId)
                : await call(gateway, 'POST', path, writers[i % 2], { boardId, content }, requestId);
          status = res.status;
          if (status !== 200) failure = { requestId, path, message: res.body.message, retryAfter: res.retryAfter };
        } catch (err) {
          status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
          failure = { requestId, path, message: (err as Error).message };
          // As a load balancer would: a gateway that failed a connection is left out for a while.
          downUntil[gateway] = Date.now() + 5_000;
        }
        const ok = status === 200;
        if (phase) {
          phase.outcomes.push({ kind, ok, gateway, status, at: Date.now(), failure });
          if (kind === 'write' && ok) phase.acknowledged.push(content);
        }
        await sleep(20);
      }
    };
    const load = Array.from({ length: workers }, (_, w) => worker(w));

    const runPhase = async (name: string, fault: () => Promise<void>, lostGateway?: number) => {
      const phase: Phase = { name, started: Date.now(), ended: 0, acknowledged: [], outcomes: [], lostGateway, details: [] };
      phases.push(phase);
      current = phase;
      await sleep(2_000);
      log(`${name}…`);
      await fault();
      await sleep(settleSeconds * 1_000);
      phase.ended = Date.now();
      const failed = phase.outcomes.filter((o) => !o.ok);
      const seen = failed.map((o) => `${o.kind}:${o.status}@${o.gateway}`).join(' ');
      log(`${name}: ${phase.outcomes.length} requests, ${failed.length} failed${seen ? ` (${seen})` : ''}, ${phase.acknowledged.length} writes acknowledged`);
      // What answered each failed request: the processes' own lines about it (they keep their last 200 chunks).
      const handles = [...running.gateways, ...SERVICES.flatMap((service) => running.services[service] ?? [])];
      for (const outcome of failed) {
        const { requestId, path: asked, message, retryAfter } = outcome.failure ?? { requestId: '?', path: '?' };
        // The id whole (`faults-1-12` is not `faults-1-123`).
        const mentions = new RegExp(`${requestId}(?![\\w.:-])`);
        const lines = handles.flatMap((handle) =>
          handle.output
            .join('')
            .split('\n')
            .filter((line) => mentions.test(line))
            .map((line) => `      ${handle.name}: ${line.slice(0, 300)}`),
        );
        phase.details.push(
          `  - ${outcome.kind} ${asked} via gateway ${outcome.gateway}: ${outcome.status}${message ? ` "${message}"` : ''}${retryAfter ? ` retry-after ${retryAfter}` : ''} (${requestId})`,
          ...(lines.length > 0 ? lines : ['      (no process logged this request id)']),
        );
      }
    };
    const waitHealthy = async (handle: ProcessHandle) => {
      for (let i = 0; i < 120; i++) {
        const up = await fetch(`${handle.url}/ready`, { signal: AbortSignal.timeout(1_000) }).then(
          (r) => r.ok,
          () => false,
        );
        if (up) return;
        await sleep(500);
      }
      log(`${handle.name} did not come back`);
    };
    const kill = (handle: ProcessHandle) => async () => {
      handle.child.kill('SIGKILL');
      await sleep(1_500);
      await waitHealthy(handle);
    };
    const freeze = (handle: ProcessHandle) => async () => {
      handle.child.kill('SIGSTOP');
      await sleep(freezeSeconds * 1_000);
      handle.child.kill('SIGCONT');
      await waitHealthy(handle);
    };
    /** The COMMUNITY stream's leader and its consumers' leaders and backlogs, as NATS reports them. */
    const streamState = async () => {
      try {
        const stream = await probe.manager.streams.info(probe.streamName('COMMUNITY'));
        const consumers = await probe.manager.consumers.list(probe.streamName('COMMUNITY')).next();
        const replicas = (stream.cluster?.replicas ?? []).map((r) => `${r.name}${r.current ? '' : ' (behind)'}${r.offline ? ' (offline)' : ''}`).join(', ');
        return `COMMUNITY led by ${stream.cluster?.leader ?? 'nobody'} (replicas ${replicas}), last seq ${stream.state.last_seq}; ${consumers
          .map(
            (c) =>
              `${c.name} led by ${c.cluster?.leader ?? 'nobody'}: ${c.num_pending} pending, ${c.num_ack_pending} unacknowledged, delivered ${c.delivered.stream_seq}`,
          )
          .join('; ')}`;
      } catch (err) {
        return `stream state unknown: ${(err as Error).message}`;
      }
    };
    const communityLeader = async () => {
      const info = await probe.manager.streams.info(probe.streamName('COMMUNITY'));
      return cluster!.nodes.find((n) => n.name === info.cluster?.leader) ?? cluster!.nodes[0];
    };

    await runPhase('baseline (no fault)', async () => {
      await sleep(freezeSeconds * 500);
    });
    for (const service of SERVICES.filter(wanted)) {
      const [first, second] = running.services[service] ?? [];
      await runPhase(`${service}: one replica SIGKILLed`, kill(first));
      await runPhase(`${service}: one replica SIGSTOPped ${freezeSeconds} s`, freeze(second));
    }
    if (wanted('gateway')) {
      await runPhase('gateway: one SIGKILLed', kill(running.gateways[1]), 1);
      await runPhase(`gateway: one SIGSTOPped ${freezeSeconds} s`, freeze(running.gateways[1]), 1);
    }
    if (wanted('nats')) {
      const killed = await communityLeader();
      await runPhase(`NATS: stream leader ${killed.name} SIGKILLed (back after ${freezeSeconds} s)`, async () => {
        killed.child()?.kill('SIGKILL');
        await sleep(freezeSeconds * 1_000);
        await killed.start();
      });
      const frozen = await communityLeader();
      await runPhase(`NATS: stream leader ${frozen.name} SIGSTOPped ${freezeSeconds} s`, async () => {
        frozen.child()?.kill('SIGSTOP');
        await sleep(freezeSeconds * 1_000);
        frozen.child()?.kill('SIGCONT');
      });
    }
    // A leader lost for good: the node stays down to the end of the run. How long until every comment acknowledged
    // after the kill is in the author's inbox says whether the two nodes left elect a new leader, and how fast.
    let leaderDown: { node: string; phase: Phase; killedAt: number } | undefined;
    if (wanted('nats') && leaderDownSeconds > 0) {
      const node = await communityLeader();
      await runPhase(`NATS: stream leader ${node.name} SIGKILLed, left down`, async () => {
        node.child()?.kill('SIGKILL');
        leaderDown = { node: node.name, phase: phases[phases.length - 1], killedAt: Date.now() };
        await sleep(leaderDownSeconds * 1_000);
      });
    }
    stopLoad = true;
    await Promise.all(load);
    current = undefined;

    // --- what is left: every acknowledged comment stored once and notified once ---
    log('waiting for the pipeline to settle…');
    /** How many times each comment is in the board author's inbox. */
    const notifiedComments = async () => {
      const notified = new Map<string, number>();
      let cursor = '';
      for (let pages = 0; pages < 1_000; pages++) {
        const answer = await call(1, 'GET', `/api/v1/notifications?size=100&id=${cursor}`, author);
        const page = answer.body.data as { nextId: number | null; notifications: { content: Array<{ comment: string }>; last: boolean } };
        for (const n of page.notifications.content) notified.set(n.comment, (notified.get(n.comment) ?? 0) + 1);
        if (page.notifications.last) break;
        cursor = String(page.nextId);
      }
      return notified;
    };
    await sleep(15_000);
    // Notified: when did the last comment acknowledged after the leader's loss reach the inbox (polled until all
    // are there, or 3 minutes)?
    let leaderDownLine = '';
    if (leaderDown) {
      const { node, phase, killedAt } = leaderDown;
      const wantedContents = new Set(phase.acknowledged);
      const deadline = Date.now() + 180_000;
      let seen = 0;
      for (let polls = 0; ; polls++) {
        const notified = await notifiedComments();
        seen = [...wantedContents].filter((content) => notified.has(content)).length;
        if (seen >= wantedContents.size || Date.now() > deadline) break;
        // Every 10 s, where the stream and its consumers stand (who leads, what waits).
        if (polls % 10 === 0) log(`${seen} of ${wantedContents.size} notified; ${await streamState()}`);
        await sleep(1_000);
      }
      if (seen < wantedContents.size) {
        // Stalled: what the relays and consumers said last (warnings and errors only).
        for (const handle of [...(running.services.community ?? []), ...(running.services.notifications ?? [])]) {
          const said = handle.output
            .join('')
            .split('\n')
            .filter((line) => /"level":"(warn|error)"/.test(line))
            .slice(-4);
          log(`${handle.name} last said:${said.length > 0 ? `\n  ${said.map((line) => line.slice(0, 400)).join('\n  ')}` : ' nothing above info'}`);
        }
      }
      leaderDownLine =
        seen >= wantedContents.size
          ? `Leader ${node} left down: all ${wantedContents.size} comments acknowledged after its loss notified within ${Math.round((Date.now() - killedAt) / 1000)} s of the kill (polled each second after the phase).`
          : `Leader ${node} left down: ${seen} of ${wantedContents.size} comments acknowledged after its loss notified ${Math.round((Date.now() - killedAt) / 1000)} s after the kill.`;
    }

    const stored = await call(0, 'GET', `/api/v1/comments/${boardId}`);
    const storedContents = new Map<string, number>();
    for (const c of stored.body.data as Array<{ content: string }>) storedContents.set(c.content, (storedContents.get(c.content) ?? 0) + 1);
    const notified = await notifiedComments();

    console.log('');
    console.log(
      `| fault | requests | failed (reads / sign-ins / writes) | failed on the lost gateway | acknowledged writes | lost | notifications lost | duplicated |`,
    );
    console.log(
      `| ----- | -------: | ---------------------------------- | -------------------------: | ------------------: | ---: | -----------------: | ---------: |`,
    );
    for (const phase of phases) {
      const failed = phase.outcomes.filter((o) => !o.ok);
      const byKind = (kind: Kind) => failed.filter((o) => o.kind === kind).length;
      const onLost = phase.lostGateway === undefined ? '-' : String(failed.filter((o) => o.gateway === phase.lostGateway).length);
      const lost = phase.acknowledged.filter((c) => !storedContents.has(c)).length;
      const notLost = phase.acknowledged.filter((c) => !notified.has(c)).length;
      const duplicated = phase.acknowledged.filter((c) => (notified.get(c) ?? 0) > 1).length;
      const statuses = [...new Set(failed.map((o) => String(o.status)))].join(',');
      console.log(
        `| ${phase.name} | ${phase.outcomes.length} | ${failed.length} (${byKind('read')} / ${byKind('signIn')} / ${byKind('write')})${statuses ? ` [${statuses}]` : ''} | ${onLost} | ${phase.acknowledged.length} | ${lost} | ${notLost} | ${duplicated} |`,
      );
    }
    if (leaderDownLine) console.log(`\n${leaderDownLine}`);
    const details = phases.filter((phase) => phase.details.length > 0);
    if (details.length > 0) {
      console.log('\nWhat answered each failed request:');
      for (const phase of details) console.log(`- ${phase.name}\n${phase.details.join('\n')}`);
    }
    await probe.close();
  } finally {
    await cleanUp();
  }
}

main().catch((err: Error) => {
  console.error(`[faults] failed: ${err.stack ?? err.message}`);
  process.exit(1);
});
