/**
 * A Bruno collection generated from the API document (`api-collection/`, written by `npm run api:collection` and
 * by `npm run api:release`): one request per operation, grouped by tag, whose bodies and path and query values are
 * the examples recorded from real answers (contracts/examples), an assertion per request (the status and the
 * envelope's `code`), and a run order that makes every request succeed against a fresh system: sign-up and
 * sign-in first (the sign-in requests keep their tokens in the environment), then each resource is created before
 * it is read, changed and deleted; the tokens and the ids the server gives are kept by post-response scripts as
 * runtime variables (`bru.setVar`: `bru run` would write environment variables back into the committed
 * `environments/local.bru`) and sent as headers and path parameters. A few requests are added where one operation is needed twice (a member's sign-in besides the
 * administrator's, a listing to approve besides one to delete); their names say so.
 *
 * `bru run -r --env local --sandbox developer` runs it (test/e2e/api-collection.e2e.test.ts runs it against a fresh
 * system). The developer sandbox lets the code requests read the code the local sender wrote (`outboxDir`);
 * against a real server leave `outboxDir` empty and type the code received into `smsCode`/`emailCode`. Files are
 * written with Bruno's own serializer (@usebruno/lang).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { envJsonToBruV2, jsonToBruV2, jsonToCollectionBru } from '@usebruno/lang';
import type { ApiDocument } from '@binzip/shared';
import { DEFAULT_PORTS } from './system';

export const COLLECTION_DIR = path.resolve(__dirname, '..', '..', 'api-collection');
export const LOCAL_GATEWAY = `http://127.0.0.1:${DEFAULT_PORTS.gateway}`;
/** An 8×8 PNG the upload requests send (`fixtures/picture.png` in the collection). */
const PICTURE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVR4nGM4UaGBFTEMLQkAUtVaAV8W4QQAAAAASUVORK5CYII=',
  'base64',
);

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Token = 'accessToken' | 'adminToken' | 'reviewerToken' | 'agentToken' | null;

/** The accounts the run signs in with (the recorded examples' names). */
export const COLLECTION_ACCOUNTS = {
  admin: { userName: 'contractadmin', password: 'Adm1nPass!' },
  reviewer: { userName: 'contractreviewer', password: 'Adm1nPass!' },
  member: { userName: 'contract_1', password: 'Passw0rd!' },
  agent: { userName: 'contract_7', password: 'Passw0rd!' },
};

/**
 * Reads the verification code the local sender wrote for the request's address (developer sandbox, `outboxDir`
 * set); against a real server the code received is typed into the environment instead.
 */
const readCode = (variable: string, field: string) => `const dir = bru.getEnvVar("outboxDir");
if (res.status === 200 && dir) {
  const fs = require("fs");
  const to = req.getBody().${field};
  for (let i = 0; i < 100; i++) {
    let lines = [];
    try { lines = fs.readFileSync(dir + "/messages.jsonl", "utf8").trim().split("\\n"); } catch (e) {}
    const sent = lines.filter(Boolean).map((l) => JSON.parse(l)).reverse().find((m) => m.to === to);
    const code = sent && /\\b(\\d{4,8})\\b/.exec(sent.text);
    if (code) { bru.setVar("${variable}", code[1]); break; }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}`;
const keepToken = (variable: string) => `if (res.status === 200 && res.body && res.body.data) {
  bru.setVar("${variable}", res.body.data.access_token);
}`;
const keep = (variable: string, expression: string) => `if (res.status === 200) {
  bru.setVar("${variable}", ${expression});
}`;

interface Step {
  operationId: string;
  /** An added request (a second use of the operation): its file name suffix and what it is for. */
  extra?: { suffix: string; name: string };
  /** The folder, when not the operation's tag (an added request that belongs to another folder's story). */
  folder?: string;
  /** Whose token to send (default: administrators' operations the administrator's, others the member's). */
  token?: Token;
  /** Path parameter values (`{{variable}}` or literal), over the recorded ones. */
  params?: Record<string, string>;
  /** Query values over the recorded ones. */
  query?: Record<string, string>;
  /** Body fields over the recorded body; a string `{{variable}}` value is sent unquoted when `raw` lists it. */
  body?: Json;
  raw?: string[];
  script?: string;
  /** An answer other than JSON (pictures): only the status is asserted. */
  binary?: boolean;
}

/**
 * The run order. Folders run in the order their tag first appears here; a tag's requests must be together.
 * Each step leaves what the next ones need: ids in environment variables, a listing approved, a board commented.
 */
const PLAN: Step[] = [
  // An agent signs up (its phone verified first); it asks to leave at the end of `users`.
  {
    operationId: 'sendSmsCode',
    extra: { suffix: 'agent', name: '문자 인증번호 발송 — 중개사' },
    folder: 'agents',
    body: { phone_num: '01055510007' },
    script: readCode('smsCode', 'phone_num'),
  },
  {
    operationId: 'checkSmsCode',
    extra: { suffix: 'agent', name: '문자 인증번호 확인 — 중개사' },
    folder: 'agents',
    body: { phone_num: '01055510007', code: '{{smsCode}}' },
  },
  { operationId: 'signUpAgent' },
  // A member signs up with both contacts verified, then everyone signs in.
  { operationId: 'sendSmsCode', script: readCode('smsCode', 'phone_num') },
  { operationId: 'checkSmsCode', body: { code: '{{smsCode}}' } },
  { operationId: 'sendEmailCode', script: readCode('emailCode', 'email') },
  { operationId: 'checkEmailCode', body: { code: '{{emailCode}}' } },
  { operationId: 'checkUserName' },
  { operationId: 'checkNickName' },
  { operationId: 'signUpUser' },
  { operationId: 'signIn', script: keepToken('adminToken') },
  {
    operationId: 'signIn',
    extra: { suffix: 'reviewer', name: '로그인 — 두 번째 관리자 (기록 검토)' },
    body: COLLECTION_ACCOUNTS.reviewer,
    script: keepToken('reviewerToken'),
  },
  { operationId: 'signIn', extra: { suffix: 'agent', name: '로그인 — 중개사' }, body: COLLECTION_ACCOUNTS.agent, script: keepToken('agentToken') },
  { operationId: 'signIn', extra: { suffix: 'member', name: '로그인 — 회원' }, body: COLLECTION_ACCOUNTS.member, script: keepToken('accessToken') },
  // The refresh cookie is the member's (the last sign-in).
  { operationId: 'reissueTokens', body: { access_token: '{{accessToken}}' }, script: keepToken('accessToken') },
  { operationId: 'getMyProfile', script: keep('memberId', 'res.body.data.id') },
  { operationId: 'checkPassword' },
  { operationId: 'updateNickName' },
  {
    operationId: 'sendEmailCode',
    extra: { suffix: 'change', name: '메일 인증번호 발송 — 바꿀 주소' },
    body: { email: 'changed@contract.example' },
    script: readCode('emailCode', 'email'),
  },
  {
    operationId: 'checkEmailCode',
    extra: { suffix: 'change', name: '메일 인증번호 확인 — 바꿀 주소' },
    body: { email: 'changed@contract.example', code: '{{emailCode}}' },
  },
  { operationId: 'updateEmail' },
  {
    operationId: 'sendSmsCode',
    extra: { suffix: 'change', name: '문자 인증번호 발송 — 바꿀 번호' },
    body: { phone_num: '01088880002' },
    script: readCode('smsCode', 'phone_num'),
  },
  { operationId: 'checkSmsCode', extra: { suffix: 'change', name: '문자 인증번호 확인 — 바꿀 번호' }, body: { phone_num: '01088880002', code: '{{smsCode}}' } },
  { operationId: 'updatePhone' },
  { operationId: 'updatePassword' },
  { operationId: 'updateMyProfile' },
  { operationId: 'logout' },
  {
    operationId: 'signIn',
    extra: { suffix: 'member-again', name: '로그인 — 회원, 바꾼 비밀번호로' },
    body: { userName: 'contract_1', password: 'N3wPassw0rd!' },
    script: keepToken('accessToken'),
  },
  { operationId: 'requestWithdrawal', token: 'agentToken' },
  // Pictures: uploaded by the member, read by anyone.
  { operationId: 'uploadHouseImage', script: keep('houseImage', 'res.body.data.imageUrl.split("/").pop()') },
  { operationId: 'getHouseImage', params: { file: '{{houseImage}}' }, binary: true },
  { operationId: 'uploadBoardImage', script: keep('boardImage', 'res.body.data.imageUrl.split("/").pop()') },
  { operationId: 'getBoardImage', params: { file: '{{boardImage}}' }, binary: true },
  // A member's listing waits for approval; the administrator approves it.
  {
    operationId: 'createHouse',
    extra: { suffix: 'approved', name: '매물 등록 — 승인받을 매물' },
    folder: 'house-approval',
    script: keep('approvedHouseId', 'res.body.data'),
  },
  { operationId: 'listWaitingHouses' },
  { operationId: 'decideHouseApproval', params: { houseId: '{{approvedHouseId}}' } },
  // Several at once (issue 40): one waiting listing approved in bulk, each row answering its own outcome.
  {
    operationId: 'createHouse',
    extra: { suffix: 'bulk', name: '매물 등록 — 일괄 승인받을 매물' },
    folder: 'house-approval',
    script: keep('bulkHouseId', 'res.body.data'),
  },
  { operationId: 'decideHouseApprovals', body: { ids: ['{{bulkHouseId}}'], approve: true }, raw: ['ids'] },
  { operationId: 'scrapHouse', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'listScrappedHouses' },
  { operationId: 'unscrapHouse', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'createHouse', script: keep('houseId', 'res.body.data') },
  { operationId: 'listHouseDrafts' },
  { operationId: 'listMyHouses' },
  { operationId: 'listOwnHouses' },
  { operationId: 'getHouseForMember', params: { houseId: '{{houseId}}' } },
  { operationId: 'updateHouse', params: { houseId: '{{houseId}}' } },
  { operationId: 'getHouse', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'listHousesNearby', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'listHouses' },
  { operationId: 'listHousesInBox' },
  { operationId: 'listHousesNear' },
  { operationId: 'listHouseClusters' },
  { operationId: 'countHousesByRegion' },
  // A completed listing can still be reported; a reported one cannot be completed.
  { operationId: 'completeHouseDeal', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'reportHouse', token: 'agentToken', params: { houseId: '{{approvedHouseId}}' } },
  { operationId: 'deleteHouse', params: { houseId: '{{houseId}}' } },
  { operationId: 'listHouseReports' },
  { operationId: 'decideHouseReport', params: { houseId: '{{approvedHouseId}}' } },
  // The reporter reads what became of the report (issue 40).
  { operationId: 'listMyHouseReports', token: 'agentToken', folder: 'house-reports' },
  { operationId: 'houseStats' },
  // Boards: the member writes, the administrator comments (the member is notified).
  { operationId: 'createBoard', script: keep('boardId', 'res.body.data') },
  { operationId: 'listBoards' },
  { operationId: 'previewBoards' },
  { operationId: 'listBoardCategories' },
  { operationId: 'getBoard', params: { boardId: '{{boardId}}' } },
  { operationId: 'updateBoard', params: { boardId: '{{boardId}}' } },
  { operationId: 'listMyBoards' },
  { operationId: 'listMyComments' },
  { operationId: 'listMyLovedBoards' },
  { operationId: 'createBoard', extra: { suffix: 'deleted', name: '게시글 작성 — 지울 글' }, script: keep('deletedBoardId', 'res.body.data') },
  { operationId: 'deleteBoard', params: { boardId: '{{deletedBoardId}}' } },
  // Reports on posts (issue 40): the agent reports the member's post; the administrator decides it below.
  { operationId: 'createBoard', extra: { suffix: 'reported', name: '게시글 작성 — 신고될 글' }, script: keep('reportedBoardId', 'res.body.data') },
  { operationId: 'reportBoard', token: 'agentToken', params: { boardId: '{{reportedBoardId}}' } },
  { operationId: 'createBoardComment', token: 'adminToken', body: { boardId: '{{boardId}}' }, raw: ['boardId'], script: keep('commentId', 'res.body.data') },
  { operationId: 'listBoardComments', params: { id: '{{boardId}}' } },
  { operationId: 'updateBoardComment', token: 'adminToken', params: { id: '{{commentId}}' }, body: { boardId: '{{boardId}}' }, raw: ['boardId'] },
  { operationId: 'deleteBoardComment', token: 'adminToken', params: { id: '{{commentId}}' } },
  { operationId: 'loveBoard', params: { boardId: '{{boardId}}' } },
  { operationId: 'getBoardLove', params: { boardId: '{{boardId}}' } },
  { operationId: 'unloveBoard', params: { boardId: '{{boardId}}' } },
  // Only an administrator's promotion post is pinned.
  {
    operationId: 'createBoard',
    extra: { suffix: 'promotion', name: '게시글 작성 — 관리자의 홍보 글' },
    folder: 'admin-boards',
    token: 'adminToken',
    body: { prefixCategory: 'ADVERTISEMENT', category: 'EMPTY' },
    script: keep('promotionBoardId', 'res.body.data'),
  },
  { operationId: 'adminPinBoard', params: { boardId: '{{promotionBoardId}}' } },
  { operationId: 'listBoardReports' },
  { operationId: 'decideBoardReport', params: { boardId: '{{reportedBoardId}}' } },
  // The reporter reads what became of the report.
  { operationId: 'listMyBoardReports', token: 'agentToken', folder: 'admin-boards' },
  { operationId: 'listNotifications', script: keep('notificationId', 'res.body.data.notifications.content[0].notification_id') },
  { operationId: 'markNotificationRead', params: { notificationId: '{{notificationId}}' } },
  { operationId: 'listNotificationFeed' },
  { operationId: 'getNotificationPreferences' },
  { operationId: 'setNotificationPreferences' },
  { operationId: 'issueNotificationStreamTicket' },
  // Web Push (issue 38): the key, a device subscribed, then unsubscribed (the recorded subscription's endpoint).
  { operationId: 'getNotificationPushKey' },
  { operationId: 'subscribeNotificationPush' },
  { operationId: 'unsubscribeNotificationPush' },
  // Saved searches (issue 38): made, listed, changed, removed.
  { operationId: 'createSavedSearch', script: keep('savedSearchId', 'res.body.data') },
  { operationId: 'listSavedSearches' },
  { operationId: 'updateSavedSearch', params: { savedSearchId: '{{savedSearchId}}' } },
  { operationId: 'deleteSavedSearch', params: { savedSearchId: '{{savedSearchId}}' } },
  // Records: an administrator writes, another reviews.
  { operationId: 'createRecord', script: keep('recordId', 'res.body.data') },
  { operationId: 'listRecords' },
  { operationId: 'getRecord', params: { recordId: '{{recordId}}' } },
  { operationId: 'hotRecords' },
  { operationId: 'updateRecord', params: { recordId: '{{recordId}}' } },
  { operationId: 'createRecord', extra: { suffix: 'deleted', name: '기록 작성 — 지울 기록' }, script: keep('deletedRecordId', 'res.body.data') },
  { operationId: 'deleteRecord', params: { recordId: '{{deletedRecordId}}' } },
  // An approval is final, so the review is a rejection until the last step approves.
  {
    operationId: 'createRecordReview',
    token: 'reviewerToken',
    body: { record_id: '{{recordId}}', status: 'reject' },
    raw: ['record_id'],
    script: keep('reviewId', 'res.body.data'),
  },
  { operationId: 'getRecordReview', params: { recordId: '{{recordId}}' } },
  { operationId: 'listRevieweeRecords' },
  { operationId: 'listReviewerRecords', token: 'reviewerToken' },
  { operationId: 'updateRecordReview', token: 'reviewerToken', params: { reviewId: '{{reviewId}}' }, body: { status: 'reject' } },
  { operationId: 'deleteRecordReview', token: 'reviewerToken', params: { reviewId: '{{reviewId}}' } },
  {
    operationId: 'createRecordReview',
    extra: { suffix: 'approve', name: '리뷰 작성 — 승인' },
    token: 'reviewerToken',
    body: { record_id: '{{recordId}}' },
    raw: ['record_id'],
  },
  { operationId: 'createRecordComment', body: { record_id: '{{recordId}}' }, raw: ['record_id'], script: keep('recordCommentId', 'res.body.data') },
  { operationId: 'updateRecordComment', params: { commentId: '{{recordCommentId}}' } },
  { operationId: 'deleteRecordComment', params: { commentId: '{{recordCommentId}}' } },
  { operationId: 'saveRecordTemplate' },
  { operationId: 'getRecordTemplate' },
  // The administrator's member operations last (a suspension is lifted at once).
  { operationId: 'adminListUsers', query: { search: 'contract_1' } },
  { operationId: 'adminSuspendUser', params: { id: '{{memberId}}' } },
  { operationId: 'adminLiftSuspension', params: { id: '{{memberId}}' } },
  // The agent who asked to leave (the recorded example's filters are another member's).
  {
    operationId: 'adminListWithdrawals',
    query: { search: COLLECTION_ACCOUNTS.agent.userName, userType: 'AGENT' },
    script: keep('withdrawingUserId', 'res.body.data.content[0].userId'),
  },
  { operationId: 'adminCompleteWithdrawal', params: { userId: '{{withdrawingUserId}}' } },
  { operationId: 'adminUserStats' },
  { operationId: 'notificationAlertStats' },
  // The trail of everything the administrators did above (issue 40).
  { operationId: 'adminListAudit' },
];

interface Operation {
  method: (typeof METHODS)[number];
  template: string;
  op: Json;
}

function operationsOf(document: ApiDocument): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) if (item[method]) operations.set(String((item[method] as Json).operationId), { method, template, op: item[method] as Json });
  }
  return operations;
}

const needsToken = (op: Json) => ((op.security ?? []) as Json[]).some((requirement) => 'bearerAuth' in requirement);
/** The document says so in each administrators' operation's description. */
const forAdministrators = (op: Json) => typeof op.description === 'string' && op.description.includes('관리자: `Authorization`');

/** A parameter's value as a URL carries it (numbers and booleans as written). */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function request(step: Step, { method, template, op }: Operation, seq: number): Json {
  const parameters = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; example?: unknown; schema?: Json }>;
  const params = parameters
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p) => {
      const given = p.in === 'path' ? step.params?.[p.name] : step.query?.[p.name];
      const value = given ?? (p.example !== undefined ? asText(p.example) : p.schema?.default !== undefined ? asText(p.schema.default) : '');
      // The recorded values are sent; optional query parameters without one are there to switch on.
      return { name: p.name, value, type: p.in, enabled: p.in === 'path' || given !== undefined || p.example !== undefined || p.required === true };
    });
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  const json = content['application/json'];
  let body: Json | undefined;
  let bodyKind = 'none';
  if (json) {
    bodyKind = 'json';
    const recorded = (json.example ?? {}) as Json;
    let text = JSON.stringify({ ...recorded, ...step.body }, null, 2);
    for (const field of step.raw ?? []) text = text.replace(new RegExp(`("${field}": )"(\\{\\{\\w+\\}\\})"`), '$1$2');
    // The same inside an array (`ids: ['{{bulkHouseId}}']`): the variable's number, not a string.
    for (const field of step.raw ?? []) text = text.replace(new RegExp(`("${field}": \\[\\s*)"(\\{\\{\\w+\\}\\})"`), '$1$2');
    body = { json: text };
  } else if (content['multipart/form-data']) {
    bodyKind = 'multipartForm';
    body = { multipartForm: [{ name: 'image', type: 'file', value: ['fixtures/picture.png'], enabled: true, contentType: 'image/png' }] };
  }
  const token = step.token !== undefined ? step.token : needsToken(op) ? (forAdministrators(op) ? 'adminToken' : 'accessToken') : null;
  const operationId = String(op.operationId);
  const summary = typeof op.summary === 'string' ? op.summary : operationId;
  const assertions = [{ name: 'res.status', value: 'eq 200', enabled: true }];
  if (!step.binary) assertions.push({ name: 'res.body.code', value: 'eq "SUCCESS"', enabled: true });
  return {
    meta: { name: `${step.extra?.name ?? summary} (${operationId})`, type: 'http', seq },
    http: { method, url: `{{baseUrl}}${template.replace(/\{(\w+)\}/g, ':$1')}${queryString(params)}`, body: bodyKind, auth: 'none' },
    params,
    headers: token ? [{ name: 'Authorization', value: `{{${token}}}`, enabled: true }] : [],
    ...(body ? { body } : {}),
    assertions,
    ...(step.script ? { script: { res: step.script } } : {}),
    docs: typeof op.description === 'string' ? op.description : '',
  };
}

/** Bruno sends the URL's query string (the `params:query` block mirrors it): the enabled values, encoded. */
function queryString(params: Array<{ name: string; value: string; type: string; enabled: boolean }>): string {
  const query = params
    .filter((p) => p.type === 'query' && p.enabled)
    .map((p) => `${encodeURIComponent(p.name)}=${p.value.startsWith('{{') ? p.value : encodeURIComponent(p.value)}`);
  return query.length > 0 ? `?${query.join('&')}` : '';
}

/** Writes the collection for `document` into `dir` (replacing what was there). */
export function writeCollection(document: ApiDocument, dir = COLLECTION_DIR): void {
  const operations = operationsOf(document);
  const planned = new Set(PLAN.map((step) => step.operationId));
  const missing = [...operations.keys()].filter((id) => !planned.has(id));
  const unknown = [...planned].filter((id) => !operations.has(id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `the collection's run order (scripts/lib/collection.ts PLAN) does not match the document: ${[
        ...missing.map((id) => `${id} has no step`),
        ...unknown.map((id) => `${id} is not in the document`),
      ].join(', ')}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'environments'), { recursive: true });
  mkdirSync(path.join(dir, 'fixtures'), { recursive: true });
  writeFileSync(path.join(dir, 'fixtures', 'picture.png'), PICTURE);
  writeFileSync(
    path.join(dir, 'bruno.json'),
    `${JSON.stringify({ version: '1', name: document.info.title, type: 'collection', ignore: ['node_modules', '.git', 'fixtures'] }, null, 2)}\n`,
  );
  const variable = (name: string, value = '') => ({ name, value, enabled: true, secret: false });
  writeFileSync(
    path.join(dir, 'environments', 'local.bru'),
    envJsonToBruV2({
      variables: [
        variable('baseUrl', LOCAL_GATEWAY),
        // Where `npm start`'s local sender writes the codes (its data folder's outbox); empty: type the codes.
        variable('outboxDir'),
        // The codes received, when there is no outbox to read (the code requests' scripts fill them otherwise).
        variable('smsCode'),
        variable('emailCode'),
      ],
    }),
  );
  const folderSeq = new Map<string, number>();
  const requestSeq = new Map<string, number>();
  let lastTag: string | undefined;
  for (const step of PLAN) {
    const operation = operations.get(step.operationId)!;
    const tag = step.folder ?? ((operation.op.tags ?? ['other']) as string[])[0];
    if (tag !== lastTag && folderSeq.has(tag)) throw new Error(`the collection's run order visits tag ${tag} twice (PLAN)`);
    lastTag = tag;
    if (!folderSeq.has(tag)) {
      folderSeq.set(tag, folderSeq.size + 1);
      mkdirSync(path.join(dir, tag), { recursive: true });
      writeFileSync(path.join(dir, tag, 'folder.bru'), jsonToCollectionBru({ meta: { name: tag, seq: folderSeq.get(tag) } }));
    }
    const seq = (requestSeq.get(tag) ?? 0) + 1;
    requestSeq.set(tag, seq);
    const file = step.extra ? `${step.operationId}-${step.extra.suffix}.bru` : `${step.operationId}.bru`;
    writeFileSync(path.join(dir, tag, file), jsonToBruV2(request(step, operation, seq)));
  }
}
