import { sanitizeStoredListings } from '../src/domain/listings';
import { MAX_CODE_LENGTH } from '../src/domain/listing-input';
import { expectError } from '../../../test/support';
import { addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let agentUser: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('housescontent', housesService);
  agentUser = await addMember(h.connection, '공인중개사박', { userType: 'AGENT' });
});
afterAll(() => h.close());

const HOSTILE =
  '<p onclick="steal()">햇살 <b>좋은</b> 집</p>' +
  '<script>document.cookie</script>' +
  '<img src="https://img.example.com/a.png" onerror="alert(1)">' +
  '<a href="javascript:alert(1)">나쁜 링크</a>' +
  '<iframe src="https://evil.example.com">프레임 대체 글</iframe>' +
  '<form action="https://evil.example.com"><input name="pw">비밀번호</form>';

const SAFE_FORM = '<p>햇살 <b>좋은</b> 집</p><img src="https://img.example.com/a.png" /><a>나쁜 링크</a>프레임 대체 글비밀번호';

function expectSafe(html: string): void {
  expect(html).not.toMatch(/<script|<iframe|<form|<input|javascript:|\son\w+=/i);
}

const bodyOf = async (houseId: number, who: TestPerson) => (await api(h).detail(houseId, who)).body.data.code as string;

test('a saved listing with scripts, handlers, javascript: links, frames and forms comes back safe, text kept', async () => {
  const houseId = await createListing(h, agentUser, { code: HOSTILE });
  const code = await bodyOf(houseId, agentUser);
  expectSafe(code);
  expect(code).toBe(SAFE_FORM);
});

test('ordinary formatting, links and images survive unchanged', async () => {
  const body =
    '<h3>소개</h3><p style="text-align:center"><strong>남향</strong>, <em>마당</em> 있음</p><ol><li>방 3</li></ol>' +
    '<table><tbody><tr><td colspan="2">면적</td></tr></tbody></table>' +
    '<p><a href="https://example.com/map" target="_blank" rel="noopener noreferrer">지도</a></p><img src="https://img.example.com/b.jpg" alt="외관" />';
  const houseId = await createListing(h, agentUser, { code: body });
  expect(await bodyOf(houseId, agentUser)).toBe(body);
});

test('drafts and edits are sanitized as well', async () => {
  const draft = await api(h).create(agentUser, { tmpYn: true, title: '초안', code: HOSTILE });
  expect(draft.status).toBe(200);
  expect(await bodyOf(draft.body.data as number, agentUser)).toBe(SAFE_FORM);

  const houseId = await createListing(h, agentUser);
  const edit = await api(h).update(
    agentUser,
    houseId,
    validListing({ code: '<p>고침</p><svg onload="alert(1)"><circle/></svg><a href="data:text/html,x">d</a>' }),
  );
  expect(edit.status).toBe(200);
  const code = await bodyOf(houseId, agentUser);
  expectSafe(code);
  expect(code).toBe('<p>고침</p><a>d</a>');
});

test('H0000 counts what the client sent, even when the markup that would be removed makes it too long', async () => {
  const text = 'a'.repeat(MAX_CODE_LENGTH - 100);
  const res = await api(h).create(agentUser, validListing({ code: `<p>${text}</p><script>${'x'.repeat(200)}</script>` }));
  expectError(res, 400, 'H0000');
});

test('a saved body with nothing left once cleaned is refused with 400 C0002', async () => {
  const res = await api(h).create(agentUser, validListing({ code: '<script>alert(1)</script>' }));
  expectError(res, 400, 'C0002');
  expect(res.body.message).toBe('본문 값이 올바르지 않습니다.');
});

test('listings stored unsafe before sanitizing existed are cleaned at start without losing their text', async () => {
  const houseId = await createListing(h, agentUser);
  // Put back a body as an older version stored it, around the app.
  await h.models.houses.collection.updateOne({ _id: houseId } as never, { $set: { code: HOSTILE } });
  const untouched = await h.models.houses.findById(houseId).lean();

  await sanitizeStoredListings(h.ctx);

  const after = await h.models.houses.findById(houseId).lean();
  expect(after?.code).toBe(SAFE_FORM);
  // Nothing else of the document changed.
  expect({ ...after, code: undefined }).toEqual({ ...untouched, code: undefined });
  expect(await bodyOf(houseId, agentUser)).toBe(SAFE_FORM);
});
