import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { buildApiDocument } from '../../scripts/lib/openapi';

const ROOT = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

jest.setTimeout(60_000);

/** Type-checks each source next to the generated types in one program; the compiler's messages per source. */
function compile(dir: string, sources: Record<string, string>): Record<string, string[]> {
  const files = Object.entries(sources).map(([name, source]) => {
    const file = path.join(dir, `${name}.ts`);
    writeFileSync(file, source);
    return [name, file] as const;
  });
  const program = ts.createProgram(
    files.map(([, file]) => file),
    { strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ['lib.es2022.d.ts'], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS },
  );
  return Object.fromEntries(
    files.map(([name, file]) => [
      name,
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    ]),
  );
}

const HEADER = `import type { paths } from './binzip-api';
type ListingBody = paths['/api/v1/houses']['post']['requestBody']['content']['application/json'];
type ListQuery = NonNullable<paths['/api/v1/houses']['get']['parameters']['query']>;
type HousePath = paths['/api/v1/houses/{houseId}']['get']['parameters']['path'];
`;

const SAVED = `{
  tmpYn: false, rentalType: 'SALE', city: '강원특별자치도 평창군', detail: '대화면 1', zipCode: '25300', size: '84.5',
  purpose: '주거', floorNum: 1, contact: '01012345678', createdDate: '1998', price: 30000000, monthlyPrice: 0,
  agentName: null, title: '평창 시골집', code: '<p>본문</p>', imageUrls: ['https://example.com/a.jpg'], recommendedTag: ['WANT_TO_FARM'],
}`;

describe('npm run client:types', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(() => {
    execFileSync(bin('tsx'), ['scripts/openapi.ts', '--out', path.join(dir, 'openapi.json')], { cwd: ROOT, stdio: 'pipe' });
    execFileSync(bin('openapi-typescript'), [path.join(dir, 'openapi.json'), '--output', path.join(dir, 'binzip-api.d.ts')], { cwd: ROOT, stdio: 'pipe' });
  });

  it('writes the merged document and TypeScript types naming every path and operation', () => {
    const document = buildApiDocument();
    expect(JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
    const types = readFileSync(path.join(dir, 'binzip-api.d.ts'), 'utf8');
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      expect(types).toContain(`"${template}": {`);
      for (const operation of Object.values(item as Record<string, { operationId?: string }>)) {
        if (operation.operationId) expect(types).toContain(`${operation.operationId}: {`);
      }
    }
  });

  const wrong: Record<string, string> = {
    'a schema name as tmpYn': `export const body: ListingBody = { tmpYn: 'HouseDraftBody' };`,
    'a saved listing missing required fields': `export const body: ListingBody = { tmpYn: false, title: '제목' };`,
    'a text page number': `export const query: ListQuery = { page: '0' };`,
    'a text path id': `export const params: HousePath = { houseId: '42' };`,
  };

  it('compiles a correct draft and saved listing, integer paging and ids, and refuses wrong ones', () => {
    const messages = compile(dir, {
      correct: `${HEADER}
export const draft: ListingBody = { tmpYn: true, title: '임시 제목', price: null };
export const emptyDraft: ListingBody = { tmpYn: true };
export const saved: ListingBody = ${SAVED};
export const query: ListQuery = { page: 0, size: 8, dealState: 'ONGOING' };
export const params: HousePath = { houseId: 42 };
`,
      ...Object.fromEntries(Object.values(wrong).map((line, i) => [`wrong${i}`, `${HEADER}${line}\n`])),
    });
    expect(messages.correct).toEqual([]);
    Object.keys(wrong).forEach((name, i) => expect({ name, refused: messages[`wrong${i}`].length > 0 }).toEqual({ name, refused: true }));
  });
});
