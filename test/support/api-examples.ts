/**
 * Recording the API document's examples from the end-to-end tests' real answers. With `RECORD_API_EXAMPLES=<dir>`
 * (set by `npm run api:examples`), every answer that passed the contract check is appended to
 * `<dir>/<pid>.jsonl` with the request that got it; the script then picks one per operation, status and code
 * (`chooseExamples`) and writes `contracts/examples/<service>.json`.
 *
 * Nothing secret is kept: request headers (the `Authorization` token, cookies) are never recorded, and a JWT
 * anywhere in a body (sign-in's and reissue's `access_token`) is replaced by `REDACTED_TOKEN`. Passwords in
 * request bodies are the tests' own fixtures, written in this repository.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ApiExamples, OperationExamples } from '@binzip/shared';

export const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'contracts', 'examples');

/** A JWT's shape: a token in an example tells its reader what to send; whose token it was must not be in the repository. */
const JWT = /eyJ[\w-]*\.[\w-]+\.[\w-]+/g;
export const REDACTED_TOKEN = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJleGFtcGxlIjp0cnVlfQ.ZXhhbXBsZQ';

export interface RecordedAnswer {
  /** The test file (relative to the repository) and the request's place in it: the choice among answers is stable. */
  file: string;
  seq: number;
  operationId: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  status: number;
  answer: { code?: unknown };
}

export function recordingDir(): string | undefined {
  return process.env.RECORD_API_EXAMPLES || undefined;
}

function redact<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(JWT, REDACTED_TOKEN)) as T;
}

/** The values of a template's `{name}` segments in a concrete path. */
function pathParams(template: string, pathname: string): Record<string, string> {
  const names = template.split('/');
  const values = pathname.split('/');
  const params: Record<string, string> = {};
  names.forEach((segment, i) => {
    const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
    if (name && values[i] !== undefined) params[name] = decodeURIComponent(values[i]);
  });
  return params;
}

let seq = 0;
const ROOT = path.resolve(__dirname, '..', '..');

/** Appends one answer that matched the document to this process's recording file. */
export function recordAnswer(
  dir: string,
  operation: { operationId: string; template: string },
  request: { path: string; body?: unknown },
  status: number,
  answer: unknown,
): void {
  const url = new URL(request.path, 'http://recorded');
  const testPath = (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath ?? 'unknown';
  const recorded: RecordedAnswer = {
    file: path.relative(ROOT, testPath),
    seq: seq++,
    operationId: operation.operationId,
    params: pathParams(operation.template, url.pathname),
    query: Object.fromEntries(url.searchParams),
    ...(request.body === undefined ? {} : { body: request.body }),
    status,
    answer: answer as RecordedAnswer['answer'],
  };
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify(redact(recorded))}\n`);
}

/** A success answer that shows something (a non-empty page or list, any data) tells a reader more than an empty one. */
function informative(answer: unknown): number {
  const data = (answer as { data?: unknown }).data;
  if (data === undefined || data === null) return 0;
  if (Array.isArray(data)) return data.length > 0 ? 2 : 1;
  if (typeof data === 'object') {
    const pages = Object.values(data as Record<string, unknown>).filter((value) => typeof value === 'object' && value !== null && 'content' in value);
    const content = (data as { content?: unknown[] }).content ?? (pages[0] as { content?: unknown[] } | undefined)?.content;
    return Array.isArray(content) ? (content.length > 0 ? 2 : 1) : 2;
  }
  return 2;
}

/**
 * One example per operation, status and code, the same for the same tests: the most informative answer, then the
 * earliest (test files by name, requests in their order). The request example is the one that got the success
 * example, so the two belong together.
 */
export function chooseExamples(answers: RecordedAnswer[]): ApiExamples {
  // A success whose request shows the query parameters, then one that shows something, then the earliest.
  const rank = (a: RecordedAnswer) => (a.status === 200 ? (Object.keys(a.query).length > 0 ? 4 : 0) + informative(a.answer) : 0);
  const order = (a: RecordedAnswer, b: RecordedAnswer) => rank(b) - rank(a) || a.file.localeCompare(b.file) || a.seq - b.seq;
  const chosen = new Map<string, RecordedAnswer>();
  for (const answer of answers) {
    const code = typeof answer.answer.code === 'string' ? answer.answer.code : '';
    const key = `${answer.operationId}\n${answer.status}\n${code}`;
    const current = chosen.get(key);
    if (!current || order(answer, current) < 0) chosen.set(key, answer);
  }
  const examples: ApiExamples = {};
  const sorted = [...chosen.values()].sort(
    (a, b) => a.operationId.localeCompare(b.operationId) || a.status - b.status || String(a.answer.code).localeCompare(String(b.answer.code)),
  );
  for (const answer of sorted) {
    const operation: OperationExamples = (examples[answer.operationId] ??= { responses: {} });
    (operation.responses[String(answer.status)] ??= {})[String(answer.answer.code)] = answer.answer;
    if (answer.status === 200) {
      const request: NonNullable<OperationExamples['request']> = {};
      if (Object.keys(answer.params).length > 0) request.params = answer.params;
      if (Object.keys(answer.query).length > 0) request.query = answer.query;
      if (answer.body !== undefined) request.body = answer.body;
      if (Object.keys(request).length > 0) operation.request = request;
    }
  }
  // The request first in each file: it reads as "send this, get that".
  for (const [id, operation] of Object.entries(examples))
    examples[id] = operation.request ? { request: operation.request, responses: operation.responses } : operation;
  return examples;
}
