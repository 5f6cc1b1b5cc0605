/**
 * The gateway's memory of community's answers right after a write (issue 42): the real community service on the
 * run's store, its cache on the run's NATS, a gateway in front with its own NATS connection. An answer depending
 * on a board commented on less than the settle second ago is kept when the service had heard that comment (its
 * offer's digest of the changes it heard), and a later change still forgets it.
 */
import type { AddressInfo } from 'node:net';
import { createLogger, type PageObject } from '@binzip/shared';
import { connectForAnnouncements } from '@binzip/shared/response-cache';
import { eventually, testEnv } from '../../../test/support';
import { addMember, cachedInstance, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { BOARD_ANSWERS, commentCreatedEvents } from '../../community/src/cache-keys';
import type { BoardItem } from '../../community/src/domain/render';
import { communityModels, initModels, type CommunityModels } from '../../community/src/models';
import { buildApp } from '../../community/src/service';
import { postBoard, postComment } from '../../community/test/helpers';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';
import { ANSWERS_SETTLE_MS } from '../src/proxy/forward';
import { serveLocally } from './helpers';

let h: ServiceHarness<CommunityModels>;
let author: TestPerson;
let commenter: TestPerson;
let instance: ReturnType<typeof cachedInstance>;
let gatewayUrl: string;
const closers: Array<() => unknown> = [];

beforeAll(async () => {
  h = await startServiceHarness('gwcommunity', { models: communityModels, initModels, buildApp });
  author = await addMember(h.connection, '게이트웨이글쓴이');
  commenter = await addMember(h.connection, '게이트웨이댓글러');
  const bus = await h.bus();
  instance = cachedInstance(h, { buildApp }, bus, 'community', [commentCreatedEvents]);
  closers.push(() => instance.cache.stop());
  const community = await serveLocally(instance.app);
  closers.push(community.close);
  const config = configSchema.parse({ JWT_PUBLIC_KEY: testEnv().publicKey, COMMUNITY_URLS: community.url, LOG_LEVEL: 'silent' });
  const gateway = buildGateway({ config, logger: createLogger('gateway-community', 'silent') });
  const announcements = await connectForAnnouncements({ url: testEnv().natsUrl, prefix: h.names.natsPrefix, name: 'gateway-community' });
  gateway.hearAnnouncements(announcements);
  await announcements.connection.flush();
  const server = await listenGateway(gateway, 0, '127.0.0.1');
  closers.push(
    () => {
      server.closeAllConnections();
      server.close();
    },
    gateway.stopHearing,
    () => announcements.close(),
  );
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await bus.connection.flush();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await h.close();
});

const listThroughGateway = async (query: string): Promise<BoardItem[]> => {
  const res = await fetch(`${gatewayUrl}/api/v1/boards?${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: PageObject<BoardItem> }).data.content;
};
/** Changes a board's title behind the service's back: only a cache's own rules can make the change show. */
const retitle = (boardId: number, title: string) => h.models.boards.updateOne({ _id: boardId }, { $set: { title } }).exec();

it('keeps a list whose board was just commented on once the service heard the comment, and forgets it on the next change', async () => {
  const t = `gw${Date.now().toString(36)}`;
  const a = await postBoard(h.app, author, { title: `${t} A` });
  const query = `prefix=DEFAULT&search=${t}`;
  await new Promise((resolve) => setTimeout(resolve, ANSWERS_SETTLE_MS + 50));

  const wroteAt = Date.now();
  const commented = await fetch(`${gatewayUrl}/api/v1/comments`, {
    method: 'POST',
    headers: { authorization: commenter.token, 'content-type': 'application/json' },
    body: JSON.stringify({ boardId: a, content: '방금 단 댓글' }),
  });
  expect(commented.status).toBe(200);
  // The writer's next read, anonymous too, shows the comment at once.
  expect((await listThroughGateway(query)).map((item) => [item.title, item.commentCount])).toEqual([[`${t} A`, 1]]);
  await retitle(a, `${t} A 고침`);
  h.clock.advance(BOARD_ANSWERS.ttlMs);
  // Kept by the gateway although its board changed less than the settle second ago: the service had heard it.
  expect((await listThroughGateway(query)).map((item) => item.title)).toEqual([`${t} A`]);
  expect(Date.now() - wroteAt).toBeLessThan(ANSWERS_SETTLE_MS);

  // Another comment, written past the gateway (its announcement alone reaches it), forgets the kept list.
  await postComment(instance.app, commenter, a, '다음 댓글');
  await eventually(async () => (await listThroughGateway(query))[0]?.commentCount === 2, 3_000);
  expect((await listThroughGateway(query))[0]?.title).toBe(`${t} A 고침`);
});
