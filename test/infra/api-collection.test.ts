import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bruToEnvJsonV2, bruToJsonV2 } from '@usebruno/lang';
import { COLLECTION_DIR, LOCAL_GATEWAY, writeCollection } from '../../scripts/lib/collection';
import { buildApiDocument } from '../../scripts/lib/openapi';

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(dir, path.join(prefix, entry.name)) : [path.join(prefix, entry.name)]))
    .sort();
}

// What the run against a system proves (test/collection, `npm run test:collection`) is checked here on the files:
// the committed collection is the generator's output for the current document, and its requests carry the
// recorded examples, the tokens and the assertions.
describe('the Bruno collection (api-collection/)', () => {
  const document = buildApiDocument();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-collection-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what the generator writes from the current API document with its examples (npm run api:collection)', () => {
    writeCollection(document, dir);
    const files = filesUnder(dir);
    expect(filesUnder(COLLECTION_DIR)).toEqual(files);
    for (const file of files)
      expect({ file, text: readFileSync(path.join(COLLECTION_DIR, file), 'utf8') }).toEqual({ file, text: readFileSync(path.join(dir, file), 'utf8') });
  });

  // Read loosely: Bruno's reader gives untyped JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Request = Record<string, any>;
  const requests = (): Request[] =>
    filesUnder(COLLECTION_DIR)
      .filter((file) => file.endsWith('.bru') && !file.startsWith('environments') && path.basename(file) !== 'folder.bru')
      .map((file) => ({ file, ...bruToJsonV2(readFileSync(path.join(COLLECTION_DIR, file), 'utf8')) }));

  it('has a request for every documented operation, each asserting its status and code', () => {
    const all = requests();
    const seen = new Set(all.map((r) => `${String(r.http.method).toUpperCase()} ${String(r.http.url).split('?')[0]}`));
    const documented: string[] = [];
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} {{baseUrl}}${template.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    expect(documented.filter((request) => !seen.has(request))).toEqual([]);
    for (const r of all) {
      expect({ file: r.file, status: r.assertions.find((a: Request) => a.name === 'res.status')?.value }).toEqual({ file: r.file, status: 'eq 200' });
      // Pictures answer bytes, not an envelope.
      if (!String(r.http.url).includes('/images/:file'))
        expect({ file: r.file, code: r.assertions.find((a: Request) => a.name === 'res.body.code')?.value }).toEqual({ file: r.file, code: 'eq "SUCCESS"' });
    }
  });

  it('sends the recorded examples, the ids earlier answers gave, and the tokens the sign-in requests keep', () => {
    const byFile = (file: string) => requests().find((r) => r.file === file)!;
    const signIn = byFile('users/signIn.bru');
    expect(signIn.headers ?? []).toEqual([]);
    expect(JSON.parse(signIn.body.json as string)).toEqual({ userName: 'contractadmin', password: 'Adm1nPass!' });
    expect(signIn.script.res).toContain('bru.setVar("adminToken", res.body.data.access_token)');
    expect(byFile('users/signIn-member.bru').script.res).toContain('bru.setVar("accessToken", res.body.data.access_token)');

    const createHouse = byFile('houses/createHouse.bru');
    expect(createHouse.headers).toEqual([expect.objectContaining({ name: 'Authorization', value: '{{accessToken}}' })]);
    const recorded = (document.paths!['/api/v1/houses'] as Request).post.requestBody.content['application/json'].example;
    expect(JSON.parse(createHouse.body.json as string)).toEqual(recorded);
    expect(createHouse.script.res).toContain('bru.setVar("houseId", res.body.data)');

    expect(byFile('houses/getHouse.bru').params).toEqual([expect.objectContaining({ name: 'houseId', type: 'path', value: '{{approvedHouseId}}' })]);
    expect(byFile('house-approval/listWaitingHouses.bru').headers).toEqual([expect.objectContaining({ value: '{{adminToken}}' })]);
    expect(byFile('houses/listHousesNear.bru').http.url).toMatch(/\/houses\/near\?latitude=36\.5391&longitude=128\.5183/);
    expect(byFile('comments/createBoardComment.bru').body.json).toContain('"boardId": {{boardId}}');

    const environment = bruToEnvJsonV2(readFileSync(path.join(COLLECTION_DIR, 'environments', 'local.bru'), 'utf8'));
    expect(environment.variables.map((v) => v.name)).toEqual(expect.arrayContaining(['baseUrl', 'outboxDir', 'smsCode', 'emailCode']));
    expect(environment.variables).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'baseUrl', value: LOCAL_GATEWAY })]));
    expect(LOCAL_GATEWAY).toBe('http://127.0.0.1:8080');
  });
});
