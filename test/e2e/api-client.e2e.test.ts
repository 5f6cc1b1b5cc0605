/**
 * The typed client package (`@binzip/api-client`) against the running system: a small front-end program written
 * only against it (api-client/examples/walkthrough.ts, compiled with the rest by the type check) runs end to
 * end, and the client renews an expired session with the refresh cookie by itself.
 */
import { ApiError, UNEXPECTED_ANSWER, createBinzipClient } from '@binzip/api-client';
import { walkthrough, type WalkthroughResult } from '../../api-client/examples/walkthrough';
import { expiredCopyOf } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

let e2e: E2eSystem;
let result: WalkthroughResult;

beforeAll(async () => {
  e2e = await startE2eSystem('apiclient', { services: ['accounts', 'community', 'houses', 'notifications'], env: { LOG_LEVEL: 'warn' } });
  result = await walkthrough({ baseUrl: e2e.url, codeSentTo: (to) => e2e.codeSentTo(to), suffix: '1' });
});

afterAll(async () => {
  await e2e?.stop();
});

test('the walkthrough signs up two members, posts, comments, notifies, and saves a listing as a draft then for real', () => {
  expect(result.author.session.accessToken).toMatch(/^Bearer /);
  expect(result.commenter.session.accessToken).toMatch(/^Bearer /);
  expect(result.notification).toMatchObject({
    board_id: result.boardId,
    board_title: '마당 넓은 시골집 구경',
    comment: '부럽네요! 어디인가요?',
    status: false,
    type: 'board',
  });
  expect(result.savedHouse).toMatchObject({ houseId: result.houseId, title: '담양 한옥', tmpYn: false, rentalType: 'JEONSE', price: 8000 });
});

test('an expired token is renewed once with the refresh cookie and the call repeated, body included', async () => {
  const { author } = result;
  const cookieBefore = author.session.refreshCookie;
  expect(cookieBefore).toMatch(/^RefreshToken=.+/);
  const expired = expiredCopyOf(author.session.accessToken!);
  author.session.accessToken = expired;

  const commentId = await author.data(author.api.POST('/api/v1/comments', { body: { boardId: result.boardId, content: '동네 이름은 비밀이에요' } }));
  expect(commentId).toBeGreaterThan(result.commentId);
  expect(author.session.accessToken).toMatch(/^Bearer /);
  expect(author.session.accessToken).not.toBe(expired);
  // Reissue rotated the cookie.
  expect(author.session.refreshCookie).toMatch(/^RefreshToken=.+/);
  expect(author.session.refreshCookie).not.toBe(cookieBefore);
  const comments = await author.data(author.api.GET('/api/v1/comments/{id}', { params: { path: { id: result.boardId } } }));
  expect(comments.map((c) => c.content)).toContain('동네 이름은 비밀이에요');
});

test('a session ended elsewhere is lost: the caller is told and gets the 401', async () => {
  const lost: string[] = [];
  const client = createBinzipClient({ baseUrl: e2e.url, onSessionLost: () => lost.push('lost') });
  await client.signIn('reader1', 'Passw0rd!');
  const { refreshCookie, accessToken } = client.session;
  expect(refreshCookie).toMatch(/^RefreshToken=.+/);
  // Logout (from another tab holding the same session) ends the cookie's session on the server.
  await client.data(client.api.POST('/api/v1/users/logout'));
  client.session.refreshCookie = refreshCookie;
  client.session.accessToken = expiredCopyOf(accessToken!);
  const { error, response } = await client.api.GET('/api/v1/users');
  expect(response.status).toBe(401);
  expect(error).toMatchObject({ code: 'J0002' });
  expect(lost).toEqual(['lost']);
  expect(client.session.accessToken).toBeNull();
});

test('signing out ends the session on the server and forgets it here', async () => {
  const client = createBinzipClient({ baseUrl: e2e.url });
  await client.signIn('reader1', 'Passw0rd!');
  const { accessToken, refreshCookie } = client.session;
  await client.signOut();
  expect(client.session.accessToken).toBeNull();
  expect(client.session.refreshCookie).toBeNull();
  // The cookie kept from before no longer renews anything: logout revoked it.
  client.session.accessToken = accessToken;
  client.session.refreshCookie = refreshCookie;
  expect(await client.reissue()).toBe(false);
  // Signing out of a session that is already over does not fail.
  await client.signOut();
  expect(client.session.accessToken).toBeNull();
});

test("a failure rejects with ApiError: the API's code and Korean message, or UNEXPECTED_ANSWER for an answer that is not the API's", async () => {
  const client = createBinzipClient({ baseUrl: e2e.url });
  const missing = client.data(client.api.GET('/api/v1/houses/{houseId}', { params: { path: { houseId: 987654 } } }));
  await expect(missing).rejects.toBeInstanceOf(ApiError);
  await expect(missing).rejects.toMatchObject({ status: 404, code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });

  // A proxy in front of the gateway answering its own page.
  const proxied = createBinzipClient({ baseUrl: e2e.url, fetch: async () => new Response('<html>502 Bad Gateway</html>', { status: 502 }) });
  await expect(proxied.data(proxied.api.GET('/api/v1/houses'))).rejects.toMatchObject({ status: 502, code: UNEXPECTED_ANSWER });
});
