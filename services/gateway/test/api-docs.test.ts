import http from 'node:http';
import vm from 'node:vm';
import express from 'express';
import request from 'supertest';
import { createLogger, type ApiDocument } from '@binzip/shared';
import { apiDocument as notificationsDocument } from '../../notifications/src/routes';
import { apiDocsRouter } from '../src/routes/api-docs';
import { serveLocally } from './helpers';

/** A real upstream serving a document at /openapi.json (or failing). */
async function documentServer(document: ApiDocument | 'fail'): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits += 1;
    if (document === 'fail' || req.url !== '/openapi.json') {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  const { url, close } = await serveLocally(server);
  return { url, hits: () => hits, close };
}

const otherDocument: ApiDocument = {
  openapi: '3.1.0',
  info: { title: 'other', version: '1' },
  paths: { '/api/v1/other': { get: { operationId: 'getOther', responses: { '200': { description: 'ok' } } } } },
};

const logger = createLogger('test', 'silent');

describe('gateway API document', () => {
  it('merges every service document, falling back to a second instance, and caches the result', async () => {
    const notifications = await documentServer(notificationsDocument());
    const broken = await documentServer('fail');
    const other = await documentServer(otherDocument);
    let clock = 0;
    const app = express().use(
      apiDocsRouter({ services: () => ({ notifications: [broken.url, notifications.url], other: [other.url] }), logger, now: () => clock }),
    );
    try {
      const res = await request(app).get('/openapi.json').expect(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/v1/notifications', '/api/v1/notifications/{notificationId}', '/api/v1/other']));
      expect(res.body.paths['/api/v1/other'].get.responses['503']).toBeDefined();
      await request(app).get('/openapi.json').expect(200);
      expect(other.hits()).toBe(1);
      clock += 61_000;
      await request(app).get('/openapi.json').expect(200);
      expect(other.hits()).toBe(2);
    } finally {
      await Promise.all([notifications.close(), broken.close(), other.close()]);
    }
  });

  it('answers a 503 envelope while a service has no document to give', async () => {
    const broken = await documentServer('fail');
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [broken.url] }), logger }));
    try {
      const res = await request(app).get('/openapi.json').expect(503);
      expect(res.body).toEqual({ code: 'C0000', message: expect.any(String) });
    } finally {
      await broken.close();
    }
  });

  it('serves Swagger UI from the package, reading /openapi.json', async () => {
    const app = express().use(apiDocsRouter({ services: () => ({}), logger }));
    const page = await request(app).get('/docs').expect(200);
    expect(page.text).toContain('id="swagger-ui"');
    // Every file the page loads is named absolutely and served from the package.
    const files = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      expect(file.startsWith('/docs/')).toBe(true);
      await request(app).get(file).expect(200);
    }
    const init = await request(app).get('/docs/swagger-initializer.js').expect(200);
    expect(init.text).toContain("url: '/openapi.json'");
  });

  it("sends the access_token pasted into Authorize exactly as sign-in returns it ('Bearer …') with one Bearer", async () => {
    const app = express().use(apiDocsRouter({ services: () => ({}), logger }));
    const init = await request(app).get('/docs/swagger-initializer.js').expect(200);
    // Runs the served script with a stand-in for the bundle, which records the configuration Swagger UI gets.
    let config: { requestInterceptor: (r: { headers: Record<string, string> }) => { headers: Record<string, string> } } | undefined;
    const SwaggerUIBundle = Object.assign((c: typeof config) => (config = c), { presets: { apis: {} } });
    const window: { onload?: () => void } = {};
    vm.runInNewContext(init.text, { window, SwaggerUIBundle, SwaggerUIStandalonePreset: {} });
    window.onload?.();
    const sent = (authorization: string) => config!.requestInterceptor({ headers: { Authorization: authorization } }).headers.Authorization;
    // Swagger UI's bearer scheme prefixes what was pasted.
    expect(sent('Bearer Bearer eyJhbGciOiJFUzI1NiJ9.x.y')).toBe('Bearer eyJhbGciOiJFUzI1NiJ9.x.y');
    expect(sent('Bearer eyJhbGciOiJFUzI1NiJ9.x.y')).toBe('Bearer eyJhbGciOiJFUzI1NiJ9.x.y');
    expect(config!.requestInterceptor({ headers: {} }).headers).toEqual({});
  });

  it('/docs may not be framed and runs only its own scripts (issue 19 item 10)', async () => {
    const app = express().use(apiDocsRouter({ services: () => ({}), logger }));
    for (const path of ['/docs', '/docs/swagger-ui-bundle.js', '/docs/swagger-initializer.js']) {
      const res = await request(app).get(path).expect(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});
