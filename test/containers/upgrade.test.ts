/**
 * Each service deployed on its own (issue 35, step 3): the previous tagged release of a process runs beside the
 * current release of the others, and the other way round, and a process's two containers are replaced one at a
 * time while a steady mix of reads and comment writes flows through the containerized gateway.
 *
 *   1. community at its previous release (git tag community-v<x>, scripts/lib/release.ts) in two containers beside
 *      the current others: its comment events are consumed by the current notifications;
 *   2. community's two containers replaced one at a time by the current release, under load;
 *   3. the other way round: notifications' two containers replaced one at a time by its previous release, under
 *      load: the current community's events are consumed by the previous notifications.
 *
 * Under the load: no read fails, every comment write answers 200 and is there afterwards, and each comment gave its
 * board's author exactly one notification. The load never retries: a client would have to retry only what failed.
 * Every answer the load got matches the API document of each version that was serving its operation then (each
 * container's own `/openapi.json`: the previous release's and the current one's), so a client written against
 * either document reads both.
 * A replacement starts the new container under the service's network alias, waits for its /ready, gives the
 * gateway time to resolve the alias again (every 2 s), then stops the old one with SIGTERM (it drains for
 * SHUTDOWN_DRAIN_MS, answering meanwhile) and removes it.
 * Run with `npm run test:containers`; builds the previous release's images when missing (a build of its own).
 */
import { rmSync } from 'node:fs';
import { buildPreviousRelease, containersDown, containersUp, projectContainers, run, type ContainersSettings } from '../../scripts/lib/containers';
import { serviceVersion } from '../../scripts/lib/release';
import { freePort } from '../../scripts/lib/server-process';
import { ApiContract, type ObservedAnswer } from '../support/contract';
import { describeWithTools } from '../support/deploy';
import { eventually, gatewayClient, settingsFor } from './helpers';

jest.setTimeout(90 * 60_000);

interface ContainerInfo {
  Name: string;
  ImageName: string;
  Config: { Env: string[] };
  NetworkSettings: { Networks: Record<string, unknown> };
}

async function inspect(name: string): Promise<ContainerInfo> {
  const res = await run('podman', ['inspect', '--type', 'container', name]);
  if (res.code !== 0) throw new Error(`podman inspect ${name}: ${res.stderr}`);
  return (JSON.parse(res.stdout) as ContainerInfo[])[0];
}

/** What a container of the process answers, asked inside it (services are not published on the host). */
async function probe(container: string, urlPath: string): Promise<{ status: number; data?: Record<string, unknown> }> {
  const script = `fetch('http://127.0.0.1:'+process.env.PORT+'${urlPath}').then(async(r)=>console.log(JSON.stringify({status:r.status,data:(await r.json()).data})),()=>console.log('{"status":0}'))`;
  const res = await run('podman', ['exec', container, 'node', '-e', script]);
  return res.code === 0 ? (JSON.parse(res.stdout) as { status: number; data?: Record<string, unknown> }) : { status: 0 };
}

/** The API document a container's process serves (`/openapi.json`), as that version declares its operations. */
async function documentOf(container: string): Promise<ApiContract> {
  const script = `fetch('http://127.0.0.1:'+process.env.PORT+'/openapi.json').then((r)=>r.text()).then((t)=>process.stdout.write(t))`;
  const res = await run('podman', ['exec', container, 'node', '-e', script]);
  if (res.code !== 0) throw new Error(`the API document of ${container}: ${res.stderr}`);
  return ApiContract.create(JSON.parse(res.stdout) as never);
}

/** A steady mix through the gateway: reads of the board, its comments and the author's inbox, and comment writes. */
class Load {
  reads = 0;
  readFailures: string[] = [];
  writes: Array<{ content: string; status: number; error?: string }> = [];
  /** Every answer, for the API documents' check. */
  answers: ObservedAnswer[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private sequence = 0;

  constructor(
    private readonly url: string,
    private readonly boardId: number,
    private readonly authorToken: string,
    private readonly commenterToken: string,
    private readonly label: string,
  ) {}

  start(): void {
    this.running = true;
    const reads = [`/api/v1/boards/${this.boardId}`, `/api/v1/comments/${this.boardId}`, '/api/v1/notifications?size=5', '/api/v1/boards?prefix=DEFAULT'];
    // Three readers, about 15 reads/s in all, and one writer, about 2 comments/s (paced, one at a time each).
    for (let r = 0; r < 3; r++) {
      this.loops.push(
        this.loop(200, async (n) => {
          const target = reads[(n + r) % reads.length];
          try {
            const res = await fetch(`${this.url}${target}`, {
              headers: target.includes('notifications') ? { authorization: this.authorToken } : {},
              signal: AbortSignal.timeout(15_000),
            });
            this.answers.push({ method: 'GET', path: target, status: res.status, body: await res.json().catch(() => undefined) });
            this.reads++;
            if (res.status !== 200) this.readFailures.push(`${target}: ${res.status}`);
          } catch (err) {
            this.readFailures.push(`${target}: ${(err as Error).message}`);
          }
        }),
      );
    }
    this.loops.push(
      this.loop(500, async () => {
        const content = `${this.label}-${++this.sequence}`;
        try {
          const res = await fetch(`${this.url}/api/v1/comments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: this.commenterToken },
            body: JSON.stringify({ boardId: this.boardId, content }),
            signal: AbortSignal.timeout(15_000),
          });
          const body = await res.text();
          this.answers.push({ method: 'POST', path: '/api/v1/comments', status: res.status, body: JSON.parse(body) as unknown });
          this.writes.push({ content, status: res.status, ...(res.status === 200 ? {} : { error: body }) });
        } catch (err) {
          this.writes.push({ content, status: 0, error: (err as Error).message });
        }
      }),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(intervalMs: number, step: (n: number) => Promise<void>): Promise<void> {
    for (let n = 0; this.running; n++) {
      const started = Date.now();
      await step(n);
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (Date.now() - started))));
    }
  }
}

describeWithTools('one process replaced at a time, releases side by side (podman)', ['podman', 'docker-compose'], () => {
  let settings: ContainersSettings;
  let dataDir: string;
  let url: string;
  let network: string;
  const previous: Record<'community' | 'notifications', string> = { community: '', notifications: '' };
  const client = gatewayClient(
    () => url,
    () => dataDir,
  );
  let author: string;
  let commenter: string;
  let boardId: number;
  const allWrites: Load['writes'] = [];

  /** The compose container's settings, for the replicas the test starts beside it (same network alias, same env). */
  let templates: Record<string, string[]> = {};

  const startReplica = async (service: 'community' | 'notifications', image: string, name: string): Promise<string> => {
    const container = `${settings.project}-${name}`;
    const env = templates[service].filter((e) => !/^(HOSTNAME|HOME|SERVICE_VERSION)=/.test(e));
    const res = await run('podman', [
      'run',
      '-d',
      '--name',
      container,
      '--network',
      network,
      '--network-alias',
      service,
      // The project's labels: the health-check runner runs its checks, `down` removes it.
      '--label',
      `com.docker.compose.project=${settings.project}`,
      '--label',
      `com.docker.compose.service=${service}`,
      '--stop-timeout',
      '30',
      ...env.flatMap((e) => ['--env', e]),
      image,
    ]);
    if (res.code !== 0) throw new Error(`podman run ${container}: ${res.stderr}`);
    await eventually(async () => (await probe(container, '/ready')).status === 200, 120_000);
    return container;
  };

  /** The old container goes only once the new one is ready and the gateway has had time to see it (2 s re-resolve). */
  const replace = async (old: string, service: 'community' | 'notifications', image: string, name: string): Promise<string> => {
    const next = await startReplica(service, image, name);
    await new Promise((r) => setTimeout(r, 6_000));
    const stopped = await run('podman', ['stop', '-t', '30', old]);
    expect({ old, code: stopped.code }).toEqual({ old, code: 0 });
    const [gone] = (await projectContainers(settings.project)).filter((c) => c.name === old);
    // SIGTERM drained and exited cleanly.
    expect({ old, exitCode: gone?.exitCode }).toEqual({ old, exitCode: 0 });
    await run('podman', ['rm', '-f', old]);
    return next;
  };

  /** Each process's document per version: the current ones from the compose containers, the previous from a replica. */
  const documents: Record<'community' | 'notifications', { current?: ApiContract; previous?: ApiContract }> = { community: {}, notifications: {} };

  /**
   * Checks each answer against every document that was serving its operation: the replaced process's answers against
   * both its versions' documents (both must know the operation), the other process's against its current one.
   */
  const answersMatchTheDocuments = (answers: ObservedAnswer[], replaced: 'community' | 'notifications') => {
    const problems: string[] = [];
    for (const answer of answers) {
      const versions = (['community', 'notifications'] as const).flatMap((process) =>
        [documents[process].current, ...(process === replaced ? [documents[process].previous] : [])].map((contract) => ({ process, contract })),
      );
      const serving = versions.filter(({ contract }) => contract?.operationOf(answer.method, answer.path));
      const process = serving[0]?.process;
      if (!process) problems.push(`${answer.method} ${answer.path}: in no document`);
      if (process === replaced && serving.length !== 2) problems.push(`${answer.method} ${answer.path}: not in both ${replaced} documents`);
      for (const { contract } of serving) {
        try {
          contract?.check(answer);
        } catch (err) {
          problems.push((err as Error).message);
        }
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
  };

  const underLoad = async (label: string, replaced: 'community' | 'notifications', change: () => Promise<void>) => {
    const load = new Load(url, boardId, author, commenter, label);
    load.start();
    await new Promise((r) => setTimeout(r, 5_000));
    await change();
    await new Promise((r) => setTimeout(r, 5_000));
    await load.stop();
    process.stdout.write(`[upgrade ${label}] ${load.reads} reads, ${load.writes.length} writes\n`);
    expect(load.readFailures).toEqual([]);
    expect(load.writes.filter((w) => w.status !== 200)).toEqual([]);
    expect(load.writes.length).toBeGreaterThan(10);
    answersMatchTheDocuments(load.answers, replaced);
    allWrites.push(...load.writes);
    await everyWriteKeptAndNotifiedOnce();
  };

  const everyWriteKeptAndNotifiedOnce = async () => {
    const expected = allWrites.map((w) => w.content).sort();
    const comments = await client.ok<Array<{ content: string }>>('GET', `/api/v1/comments/${boardId}`);
    const kept = comments.map((c) => c.content).filter((c) => expected.includes(c));
    expect(kept.sort()).toEqual(expected);
    // Each comment gave the author exactly one notification (consumed once, whichever version consumed it).
    const notified = await eventually(async () => {
      const contents = await inbox();
      const ours = contents.filter((c) => expected.includes(c));
      return ours.length >= expected.length ? ours : undefined;
    }, 90_000);
    await new Promise((r) => setTimeout(r, 3_000));
    const settled = (await inbox()).filter((c) => expected.includes(c));
    expect(settled.sort()).toEqual(expected);
    expect(notified.length).toBe(expected.length);
  };

  /** Every notification's comment text in the author's inbox, all pages (newest first, `id` = the last page's nextId). */
  const inbox = async (): Promise<string[]> => {
    const out: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await client.ok<{ nextId: number | null; notifications: { content: Array<{ content?: string; comment?: string }>; last?: boolean } }>(
        'GET',
        `/api/v1/notifications?size=50${cursor ? `&id=${cursor}` : ''}`,
        undefined,
        author,
      );
      out.push(...page.notifications.content.map((n) => String(n.content ?? n.comment ?? '')));
      if (page.notifications.content.length < 50 || page.nextId == null) return out;
      cursor = String(page.nextId);
    }
  };

  beforeAll(async () => {
    ({ settings, dataDir } = settingsFor('upgrade', { SHUTDOWN_DRAIN_MS: '5000', CEILING_MEMBER_WRITES: '100000' }, await freePort('127.0.0.1')));
    previous.community = await buildPreviousRelease(settings, 'community');
    previous.notifications = await buildPreviousRelease(settings, 'notifications');
    ({ url } = await containersUp(settings));
    const community = await inspect(`${settings.project}_community_1`);
    network = Object.keys(community.NetworkSettings.Networks)[0];
    templates = { community: community.Config.Env, notifications: (await inspect(`${settings.project}_notifications_1`)).Config.Env };
    documents.community.current = await documentOf(`${settings.project}_community_1`);
    documents.notifications.current = await documentOf(`${settings.project}_notifications_1`);
    const suffix = String(process.pid % 10_000).padStart(4, '0');
    author = await client.signUp(`upauthor${suffix}`, `0103333${suffix}`, `upauthor${suffix}@example.com`);
    commenter = await client.signUp(`upreader${suffix}`, `0104444${suffix}`, `upreader${suffix}@example.com`);
    boardId = await client.ok<number>(
      'POST',
      '/api/v1/boards',
      { title: '교체 중에 쓴 글', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
      author,
    );
  });

  afterAll(async () => {
    if (settings) await containersDown(settings, { volumes: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  let communities: string[] = [];
  let notifications: string[] = [];

  it("runs community's previous release in two containers beside the current others; its events reach the current notifications", async () => {
    expect(previous.community).toMatch(/^binzip\/community:\d+\.\d+\.\d+/);
    const release = previous.community.split(':')[1];
    const a = await startReplica('community', previous.community, 'community-a');
    const b = await startReplica('community', previous.community, 'community-b');
    communities = [a, b];
    documents.community.previous = await documentOf(a);
    // The compose container (current release) goes once the gateway sees the two: community is the previous release alone.
    await new Promise((r) => setTimeout(r, 6_000));
    expect((await run('podman', ['stop', '-t', '30', `${settings.project}_community_1`])).code).toBe(0);
    await run('podman', ['rm', '-f', `${settings.project}_community_1`]);
    // The image's label names the release; its /health says the same, or nothing (releases before 0.2.0 had no version there).
    const label = await run('podman', ['image', 'inspect', '--format', '{{index .Labels "org.opencontainers.image.version"}}', previous.community]);
    expect(label.stdout.trim()).toBe(release);
    expect([undefined, release]).toContain((await probe(a, '/health')).data?.version);
    await underLoad('previous-community', 'community', async () => {
      await new Promise((r) => setTimeout(r, 10_000));
    });
  });

  it("replaces community's two containers one at a time with the current release under load: nothing fails, lost or doubled", async () => {
    const current = `binzip/community:${settings.imageTag}`;
    await underLoad('roll-community', 'community', async () => {
      communities[0] = await replace(communities[0], 'community', current, 'community-current-a');
      communities[1] = await replace(communities[1], 'community', current, 'community-current-b');
    });
    for (const c of communities) expect((await probe(c, '/health')).data?.version).toBe(serviceVersion('community'));
  });

  it("the other way round: notifications' two containers replaced one at a time by its previous release under load", async () => {
    const current = `binzip/notifications:${settings.imageTag}`;
    // Two current containers first (the compose one and a replica), then each replaced by the previous release.
    notifications = [`${settings.project}_notifications_1`, await startReplica('notifications', current, 'notifications-b')];
    // The previous release's document, from a container of its own before the roll (the load is checked against it).
    const sample = await startReplica('notifications', previous.notifications, 'notifications-previous-document');
    documents.notifications.previous = await documentOf(sample);
    await run('podman', ['stop', '-t', '30', sample]);
    await run('podman', ['rm', '-f', sample]);
    await underLoad('roll-notifications-back', 'notifications', async () => {
      notifications[0] = await replace(notifications[0], 'notifications', previous.notifications, 'notifications-previous-a');
      notifications[1] = await replace(notifications[1], 'notifications', previous.notifications, 'notifications-previous-b');
    });
    const release = previous.notifications.split(':')[1];
    for (const c of notifications) expect([undefined, release]).toContain((await probe(c, '/health')).data?.version);
  });
});
