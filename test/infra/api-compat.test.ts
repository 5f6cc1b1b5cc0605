import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiDocument } from '@binzip/shared';
import { apiBreakingChanges, breakingChangesSinceRelease, currentEventSchemas, eventBreakingChanges, readRelease, RELEASE_DIR } from '../../scripts/lib/compat';
import { buildApiDocument } from '../../scripts/lib/openapi';

const ROOT = path.resolve(__dirname, '..', '..');

jest.setTimeout(120_000);

// Doctored copies of JSON documents: the test reaches into them freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
const copy = <T>(value: T): T => structuredClone(value);

describe('compatibility gates against the last release (contracts/released)', () => {
  it('the current API document and event contracts break nothing of the release', () => {
    const { api, events } = breakingChangesSinceRelease();
    // On failure the message lists what broke; see docs/versioning.md for what to do.
    expect({ api, events }).toEqual({ api: [], events: [] });
  });

  it('the release holds one JSON Schema per event subject and version, generated from the zod contracts', () => {
    const released = readRelease().events;
    expect(Object.keys(currentEventSchemas()).sort()).toEqual(expect.arrayContaining(Object.keys(released).sort()));
    expect(Object.keys(released)).toEqual(expect.arrayContaining(['accounts.user.v1.json', 'community.comment.created.v1.json']));
  });
});

describe('the API gate', () => {
  const released = buildApiDocument();
  const paths = (doc: ApiDocument) => doc.paths as Json;
  const schemas = (doc: ApiDocument) => (doc.components as Json).schemas as Json;

  it('passes additions: a new operation, an optional request field, a response field, an error code', () => {
    const next = copy(released);
    paths(next)['/api/v1/houses/new-thing'] = paths(next)['/api/v1/houses/agent'];
    schemas(next).HouseDraftBody.properties.note = { type: 'string' };
    schemas(next).HouseListingDetail.properties.extra = { type: 'string' };
    paths(next)['/api/v1/houses/{houseId}'].get.responses['404'].content['application/json'].schema.properties.code.enum.push('U0011');
    expect(apiBreakingChanges(released, next)).toEqual([]);
  });

  const breaks: Array<[string, (doc: ApiDocument) => void, RegExp]> = [
    ['a removed operation', (doc) => delete paths(doc)['/api/v1/houses/scrap'], /GET \/api\/v1\/houses\/scrap: .*Removed.*operation/i],
    [
      'a removed response field',
      (doc) => {
        const detail = schemas(doc).HouseListingDetail;
        delete detail.properties.title;
        detail.required = detail.required.filter((name: string) => name !== 'title');
      },
      /GET \/api\/v1\/houses\/\{houseId\}: .*`title`/,
    ],
    ['a new required request field', (doc) => schemas(doc).HouseSavedBody.required.push('agentName'), /POST \/api\/v1\/houses: .*required.*`agentName`/],
    ['a removed request field', (doc) => delete schemas(doc).HouseDraftBody.properties.purpose, /POST \/api\/v1\/houses: .*`purpose`/],
    [
      'a narrowed query parameter',
      (doc) => (paths(doc)['/api/v1/houses'].get.parameters.find((p: Json) => p.name === 'size').schema.maximum = 5),
      /GET \/api\/v1\/houses: .*maximum.*`size`/,
    ],
  ];

  // One doctored copy with every break (each on its own operation or field): one diff, each named.
  it('fails on a removed operation or response field, a new required or removed request field, a narrowed parameter, and says what broke', () => {
    const broken = copy(released);
    for (const [, breakIt] of breaks) breakIt(broken);
    const report = apiBreakingChanges(released, broken).join('\n');
    for (const [name, , expected] of breaks) expect({ name, found: expected.test(report) }).toEqual({ name, found: true });
  });
});

describe('the event gate', () => {
  const released = currentEventSchemas() as Record<string, Json>;
  const user = 'accounts.user.v1.json';

  it('passes a new optional field and new wording', () => {
    const next = copy(released);
    next[user].properties.avatarUrl = { type: 'string' };
    next[user].description = '회원 스냅숏';
    expect(eventBreakingChanges(released, next)).toEqual([]);
  });

  it.each<[string, (events: Record<string, Json>) => void, string]>([
    ['a removed field', (e) => delete e[user].properties.nick_name, 'accounts.user.v1.json: field `nick_name` removed'],
    [
      'a field made optional',
      (e) => (e[user].required = e[user].required.filter((n: string) => n !== 'status')),
      'accounts.user.v1.json: field `status` is no longer required',
    ],
    [
      'a new required field',
      (e) => {
        e[user].properties.avatarUrl = { type: 'string' };
        e[user].required.push('avatarUrl');
      },
      'accounts.user.v1.json: new required field `avatarUrl`',
    ],
    ['a changed type', (e) => (e[user].properties.id = { type: 'string' }), 'accounts.user.v1.json: `id` type changed from "integer" to "string"'],
    ['a new enum value', (e) => e[user].properties.status.enum.push('DORMANT'), 'accounts.user.v1.json: `status` enum changed'],
    ['a removed contract', (e) => delete e['houses.report.created.v1.json'], 'houses.report.created.v1.json: the event contract is gone'],
  ])('fails on %s and says what broke', (_name, breakIt, expected) => {
    const broken = copy(released);
    breakIt(broken);
    expect(eventBreakingChanges(released, broken).join('\n')).toContain(expected);
  });
});

describe('npm run api:compat', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-compat-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 1 naming the break when the release has what the code no longer has', () => {
    // A release in which houses' report event had one more field than the code now publishes.
    cpSync(RELEASE_DIR, dir, { recursive: true });
    const file = path.join(dir, 'events', 'houses.report.created.v1.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Json;
    schema.properties.reason = { type: 'string' };
    schema.required.push('reason');
    writeFileSync(file, JSON.stringify(schema));
    let output = '';
    let status = 0;
    try {
      execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/api-compat.ts', '--release', dir], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    } catch (err) {
      const failure = err as { status: number; stderr: string };
      status = failure.status;
      output = failure.stderr;
    }
    expect(status).toBe(1);
    expect(output).toContain('houses.report.created.v1.json: field `reason` removed');
  });
});
