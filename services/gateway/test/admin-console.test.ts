/**
 * The gateway serves the built administrators' console at /admin (a throw-away build folder here, so the
 * test does not depend on `npm run build`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { buildGateway } from '../src/gateway';
import { configSchema } from '../src/config';

const INDEX_HTML = '<!doctype html><html lang="ko"><head><script type="module" src="/admin/assets/index-Ab12Cd34.js"></script></head><body></body></html>';
const ASSET_JS = 'console.log("admin");';

const keys = generateDevKeyPair();
const logger = createLogger('gateway-admin-console-test', 'silent');
let buildDir: string;

function gateway(adminConsoleDir: string) {
  // Unreachable upstreams: these tests never reach a service.
  const config = configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, ADMIN_CONSOLE_DIR: adminConsoleDir, ACCOUNTS_URLS: 'http://127.0.0.1:9' });
  return buildGateway({ config, logger }).handle;
}

beforeAll(() => {
  buildDir = mkdtempSync(path.join(os.tmpdir(), 'admin-console-build-'));
  mkdirSync(path.join(buildDir, 'assets'));
  writeFileSync(path.join(buildDir, 'index.html'), INDEX_HTML);
  writeFileSync(path.join(buildDir, 'assets', 'index-Ab12Cd34.js'), ASSET_JS);
  writeFileSync(path.join(buildDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
});

afterAll(() => {
  rmSync(buildDir, { recursive: true, force: true });
});

describe('with a build', () => {
  it.each(['/admin', '/admin/', '/admin/index.html'])('%s answers index.html, revalidated on every visit', async (url) => {
    const res = await request(gateway(buildDir)).get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toBe(INDEX_HTML);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it.each(['/admin/users', '/admin/stats/', '/admin/reports/12'])('the screen path %s falls back to index.html (the app routes by path)', async (url) => {
    const res = await request(gateway(buildDir)).get(url);
    expect(res.status).toBe(200);
    expect(res.text).toBe(INDEX_HTML);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets with their type and a long, immutable cache', async () => {
    const res = await request(gateway(buildDir)).get('/admin/assets/index-Ab12Cd34.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.text).toBe(ASSET_JS);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('files outside assets/ are not cached for good (their names carry no hash)', async () => {
    const res = await request(gateway(buildDir)).get('/admin/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('a missing asset is a 404 envelope, not the HTML page a browser would try to run as a script', async () => {
    const res = await request(gateway(buildDir)).get('/admin/assets/index-Gone0000.js');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
  });

  it('never serves a file from outside the build folder', async () => {
    const res = await request(gateway(buildDir)).get('/admin/..%2f..%2fpackage.json');
    expect(res.text).not.toContain('"workspaces"');
    expect(res.text).not.toContain('"dependencies"');
  });

  it('other methods and paths that only start with "admin" are not the console', async () => {
    const app = gateway(buildDir);
    const post = await request(app).post('/admin').send({});
    expect(post.status).toBe(404);
    expect(post.body.code).toBe('C0001');
    const lookalike = await request(app).get('/administrator');
    expect(lookalike.status).toBe(404);
    expect(lookalike.body.code).toBe('C0001');
  });

  it("the gateway's own routes still answer", async () => {
    const res = await request(gateway(buildDir)).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      status: 'UP',
      service: 'gateway',
      version: (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version,
    });
  });
});

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | undefined): Record<string, string[]> {
  return Object.fromEntries(
    (header ?? '').split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe('browser security headers (issue 19 item 10)', () => {
  it.each(['/admin', '/admin/stats', '/admin/assets/index-Ab12Cd34.js', '/admin/assets/index-Gone0000.js'])(
    '%s may not be framed by anyone and loads code only from the gateway',
    async (url) => {
      const res = await request(gateway(buildDir)).get(url);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(csp['default-src']).toEqual(["'self'"]);
      expect(csp['script-src']).toEqual(["'self'"]);
      expect(csp['style-src']).toEqual(["'self'"]);
      expect(csp['object-src']).toEqual(["'none'"]);
      expect(csp['base-uri']).toEqual(["'none'"]);
      expect(res.headers['content-security-policy']).not.toMatch(/unsafe-(inline|eval)|\*/);
    },
  );

  it('holds without a build too (the 404 envelope)', async () => {
    const res = await request(gateway(path.join(buildDir, 'missing'))).get('/admin');
    expect(directives(res.headers['content-security-policy'])['frame-ancestors']).toEqual(["'none'"]);
  });
});

describe('without a build', () => {
  it.each(['/admin', '/admin/', '/admin/stats', '/admin/assets/index-Ab12Cd34.js'])('%s is a 404 envelope (C0001)', async (url) => {
    const res = await request(gateway(path.join(buildDir, 'missing'))).get(url);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
  });
});

it("by default the folder is the repository's admin-console/dist", () => {
  const config = configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey });
  expect(config.ADMIN_CONSOLE_DIR).toBe(path.resolve(__dirname, '..', '..', '..', 'admin-console', 'dist'));
});
