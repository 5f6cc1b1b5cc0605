import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApiDocument } from '../../scripts/lib/openapi';

const ROOT = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

jest.setTimeout(60_000);

describe('npm run client:types', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the merged document and TypeScript types naming every path and operation', () => {
    const documentFile = path.join(dir, 'openapi.json');
    const typesFile = path.join(dir, 'binzip-api.d.ts');
    execFileSync(bin('tsx'), ['scripts/openapi.ts', '--out', documentFile], { cwd: ROOT, stdio: 'pipe' });
    execFileSync(bin('openapi-typescript'), [documentFile, '--output', typesFile], { cwd: ROOT, stdio: 'pipe' });

    const document = buildApiDocument();
    expect(JSON.parse(readFileSync(documentFile, 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
    const types = readFileSync(typesFile, 'utf8');
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      expect(types).toContain(`"${template}": {`);
      for (const operation of Object.values(item as Record<string, { operationId?: string }>)) {
        if (operation.operationId) expect(types).toContain(`${operation.operationId}: {`);
      }
    }
  });
});
