/**
 * A small front-end program written only against the typed client: two people sign up (each verifying a phone and
 * an e-mail with the codes they receive), sign in, one writes a post, the other comments on it, the author reads
 * the comment notification, then saves a house listing as a draft and then for real. The test
 * test/e2e/api-client.e2e.test.ts runs it against the running system.
 */
import { createBinzipClient, type BinzipClient, type Schema } from '../src';

export interface WalkthroughOptions {
  baseUrl: string;
  /** The code the site sent to a phone number or e-mail address (read from the local outbox in tests). */
  codeSentTo(to: string): Promise<string>;
  /** A distinct suffix for names, so the program can run more than once against one system. */
  suffix: string;
}

export interface WalkthroughResult {
  author: BinzipClient;
  commenter: BinzipClient;
  boardId: number;
  commentId: number;
  notification: Schema<'NotificationItem'>;
  houseId: number;
  savedHouse: Schema<'HouseListingDetail'>;
}

const PASSWORD = 'Passw0rd!';

async function signUp(client: BinzipClient, options: WalkthroughOptions, who: { userName: string; nick: string; phone: string; email: string }) {
  const { api, data } = client;
  await data(api.POST('/api/v1/users/check/user-name', { body: { userName: who.userName } }));
  await data(api.POST('/api/v1/users/send/sms', { body: { phone_num: who.phone } }));
  const phoneOk = await data(api.POST('/api/v1/users/check/sms', { body: { phone_num: who.phone, code: await options.codeSentTo(who.phone) } }));
  await data(api.POST('/api/v1/users/send/email', { body: { email: who.email } }));
  const emailOk = await data(api.POST('/api/v1/users/check/email', { body: { email: who.email, code: await options.codeSentTo(who.email) } }));
  if (phoneOk !== true || emailOk !== true) throw new Error(`the codes sent to ${who.phone} and ${who.email} were not accepted`);
  await data(
    api.POST('/api/v1/users/sign-up', {
      body: {
        userName: who.userName,
        password: PASSWORD,
        nick_name: who.nick,
        phone_num: who.phone,
        age: '30대',
        join_paths: ['검색'],
        terms: ['SERVICE_USED_AGREE'],
        email: who.email,
      },
    }),
  );
  await client.signIn(who.userName, PASSWORD);
}

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing arrived within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function walkthrough(options: WalkthroughOptions): Promise<WalkthroughResult> {
  const author = createBinzipClient({ baseUrl: options.baseUrl });
  const commenter = createBinzipClient({ baseUrl: options.baseUrl });
  const n = options.suffix;
  await signUp(author, options, { userName: `author${n}`, nick: `글쓴이${n}`, phone: `0105${n.padStart(7, '0')}`, email: `author${n}@example.com` });
  await signUp(commenter, options, { userName: `reader${n}`, nick: `댓글러${n}`, phone: `0106${n.padStart(7, '0')}`, email: `reader${n}@example.com` });

  const boardId = await author.data(
    author.api.POST('/api/v1/boards', {
      body: { title: '마당 넓은 시골집 구경', code: '<p>봄에 이사 왔어요</p>', category: 'DAILY', prefixCategory: 'DEFAULT', fixed: false, imageUrls: [] },
    }),
  );
  const commentId = await commenter.data(commenter.api.POST('/api/v1/comments', { body: { boardId, content: '부럽네요! 어디인가요?' } }));

  const notification = await eventually(async () => {
    const inbox = await author.data(author.api.GET('/api/v1/notifications', { params: { query: { size: 10 } } }));
    return inbox.notifications.content.find((item) => item.board_id === boardId && item.type === 'board');
  });

  const houseId = await author.data(author.api.POST('/api/v1/houses', { body: { tmpYn: true, title: '담양 한옥 (작성 중)', price: null } }));
  await author.data(
    author.api.PUT('/api/v1/houses/{houseId}', {
      params: { path: { houseId } },
      body: {
        tmpYn: false,
        rentalType: 'JEONSE',
        city: '전라남도 담양군 창평면',
        detail: '삼지내마을 12',
        zipCode: '57330',
        size: '99.2',
        purpose: '주거용',
        floorNum: null,
        contact: '01055556666',
        createdDate: '1975',
        price: 8000,
        monthlyPrice: 0,
        agentName: null,
        title: '담양 한옥',
        code: '<p>돌담길 옆 한옥</p>',
        imageUrls: ['https://img.example.com/hanok.jpg'],
        recommendedTag: ['WANT_TO_READY_HOUSE'],
      },
    }),
  );
  const savedHouse = await author.data(author.api.GET('/api/v1/houses/user-scrap/{houseId}', { params: { path: { houseId } } }));
  return { author, commenter, boardId, commentId, notification, houseId, savedHouse };
}
