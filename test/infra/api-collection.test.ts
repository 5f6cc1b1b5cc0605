import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bruToEnvJsonV2, bruToJsonV2 } from '@usebruno/lang';
import { COLLECTION_DIR, LOCAL_GATEWAY, writeCollection } from '../../scripts/lib/collection';
import { readRelease } from '../../scripts/lib/compat';

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(dir, path.join(prefix, entry.name)) : [path.join(prefix, entry.name)]))
    .sort();
}

describe('the Bruno collection (api-collection/)', () => {
  const released = readRelease().document;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-collection-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what the generator writes from the released API document (npm run api:release keeps them in step)', () => {
    writeCollection(released, dir);
    const files = filesUnder(dir);
    expect(filesUnder(COLLECTION_DIR)).toEqual(files);
    for (const file of files)
      expect({ file, text: readFileSync(path.join(COLLECTION_DIR, file), 'utf8') }).toEqual({ file, text: readFileSync(path.join(dir, file), 'utf8') });
  });

  it("has one request Bruno can read per documented operation, with the token where one is needed, and npm start's gateway", () => {
    const requests = filesUnder(COLLECTION_DIR)
      .filter((file) => file.endsWith('.bru') && !file.startsWith('environments'))
      .map((file) => bruToJsonV2(readFileSync(path.join(COLLECTION_DIR, file), 'utf8')));
    const seen = requests.map((r) => `${String(r.http.method).toUpperCase()} ${String(r.http.url)}`).sort();
    const documented: string[] = [];
    for (const [template, item] of Object.entries(released.paths ?? {})) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} {{baseUrl}}${template.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    expect(seen).toEqual(documented.sort());

    const byName = (id: string) => requests.find((r) => String(r.meta.name).endsWith(`(${id})`))!;
    expect(byName('signIn').headers ?? []).toEqual([]);
    expect(byName('signIn').script.res).toContain('bru.setEnvVar("accessToken", res.body.data.access_token)');
    expect(byName('createHouse').headers).toEqual([expect.objectContaining({ name: 'Authorization', value: '{{accessToken}}' })]);
    expect(JSON.parse(byName('createHouse').body.json as string)).toMatchObject({ tmpYn: true });
    expect(byName('getHouse').params).toEqual([expect.objectContaining({ name: 'houseId', type: 'path' })]);

    const environment = bruToEnvJsonV2(readFileSync(path.join(COLLECTION_DIR, 'environments', 'local.bru'), 'utf8'));
    expect(environment.variables).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'baseUrl', value: LOCAL_GATEWAY })]));
    expect(LOCAL_GATEWAY).toBe('http://127.0.0.1:8080');
  });
});
