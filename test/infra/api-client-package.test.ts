/**
 * The client package as another project gets it: `npm pack` in api-client/, the tarball installed with TypeScript
 * into a separate project in a temporary folder (npm's cache first, so it works offline once the repository's own
 * install has run), and a small program compiled against it and run. Before, the package was private and its
 * packed types failed with TS2307 "Cannot find module './schema'". Also: the committed generated types are in step
 * with the document, and the drift check names the one command that regenerates them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLIENT_TYPES_FILE = path.join(ROOT, 'api-client', 'src', 'schema.d.ts');
/** Run as a process: jest cannot load openapi-typescript's ES module dependencies in-process. */
const check = (...args: string[]) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/client-types.ts', '--check', ...args], { cwd: ROOT, encoding: 'utf8' });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

jest.setTimeout(240_000);

const PROGRAM = `import { ApiError, createBinzipClient, type Schema, type SuccessData } from '@binzip/api-client';

const client = createBinzipClient({ baseUrl: 'http://127.0.0.1:9', onSessionLost: () => undefined });
export async function house(houseId: number): Promise<SuccessData<'/api/v1/houses/{houseId}', 'get'>> {
  return client.data(client.api.GET('/api/v1/houses/{houseId}', { params: { path: { houseId } } }));
}
export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;
export type Board = Schema<'CommunityBoardDetail'>;
console.log(typeof createBinzipClient, typeof client.signIn);
`;

/** The program with one wrong line: must not compile (the types are real, not `any`). */
const WRONG = `import { createBinzipClient } from '@binzip/api-client';
const client = createBinzipClient({ baseUrl: '' });
void client.api.GET('/api/v1/houses/{houseId}', { params: { path: { houseId: 'not a number' } } });
void client.api.GET('/api/v1/no-such-path');
`;

describe('the client package installed into a separate project', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-client-package-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let manifest: { name: string; version: string; private?: boolean; types: string };
  beforeAll(() => {
    manifest = JSON.parse(readFileSync(path.join(ROOT, 'api-client', 'package.json'), 'utf8')) as typeof manifest;
    execFileSync(npm, ['pack', '--pack-destination', dir], { cwd: path.join(ROOT, 'api-client'), stdio: 'pipe' });
  });

  it('is publishable: not private, packed with its built code and every declaration file it names', () => {
    expect(manifest.private).toBeUndefined();
    const tarballs = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
    expect(tarballs).toEqual([`binzip-api-client-${manifest.version}.tgz`]);
    const listing = execFileSync('tar', ['-tzf', path.join(dir, tarballs[0])], { encoding: 'utf8' }).split('\n');
    expect(listing).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/schema.d.ts', 'package/package.json']));
  });

  it('installs with TypeScript, compiles a program against it under strict settings, refuses a wrong call, and runs', () => {
    const project = path.join(dir, 'front-end');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'front-end', version: '0.0.0', private: true }));
    const typescriptVersion = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')) as { version: string }).version;
    execFileSync(
      npm,
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        path.join(dir, `binzip-api-client-${manifest.version}.tgz`),
        `typescript@${typescriptVersion}`,
      ],
      { cwd: project, stdio: 'pipe' },
    );
    const tsconfig = {
      compilerOptions: { strict: true, target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022', 'DOM'], outDir: 'out' },
    };
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ ...tsconfig, files: ['main.ts'] }));
    writeFileSync(path.join(project, 'main.ts'), PROGRAM);
    const tsc = path.join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const good = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    expect(good.stdout + good.stderr).toBe('');
    expect(good.status).toBe(0);
    expect(execFileSync(process.execPath, ['out/main.js'], { cwd: project, encoding: 'utf8' })).toBe('function function\n');

    writeFileSync(path.join(project, 'wrong.ts'), WRONG);
    writeFileSync(
      path.join(project, 'tsconfig.wrong.json'),
      JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, noEmit: true }, files: ['wrong.ts'] }),
    );
    const wrong = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: project, encoding: 'utf8' });
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts\(3,.*TS2322/);
    expect(wrong.stdout).toMatch(/wrong\.ts\(4,/);
    expect(wrong.stdout).not.toMatch(/TS2307/);
  });
});

// That the committed types are in step is `npm run client:check`, part of `npm run typecheck` and so of `npm test`.
describe('the generated types stay in step with the API document', () => {
  it('a drifted copy fails the check, which names the one command that regenerates it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'client-drift-'));
    try {
      const drifted = path.join(dir, 'schema.d.ts');
      const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
      writeFileSync(drifted, committed.replace('houseId: number', 'houseId: string'));
      const run = check('--types', drifted);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('Run: npm run client:types');
      // The check writes nothing.
      expect(readFileSync(drifted, 'utf8')).not.toBe(committed);
      expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(committed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
