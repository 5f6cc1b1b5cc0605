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

  it('serves /docs as a plain HTML reference of the merged document: every operation, its examples and answers, no script', async () => {
    const notifications = await documentServer(notificationsDocument());
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [notifications.url] }), logger }));
    try {
      const page = await request(app).get('/docs').set('accept-encoding', 'gzip').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['content-encoding']).toBe('gzip');
      expect(page.text).not.toContain('<script');
      const document = (await request(app).get('/openapi.json').expect(200)).body as ApiDocument;
      for (const [template, item] of Object.entries(document.paths ?? {}))
        for (const op of Object.values(item as Record<string, { operationId: string }>)) {
          expect(page.text).toContain(`id="${op.operationId}"`);
          expect(page.text).toContain(`<code>${template}</code>`);
        }
      // The recorded success example and the answers' codes are on the page, escaped.
      expect(page.text).toContain('&quot;code&quot;: &quot;SUCCESS&quot;');
      expect(page.text).toContain('J0001');
      expect(page.text).toContain('href="/docs/try"');
      await request(app).get('/docs').set('if-none-match', String(page.headers.etag)).expect(304);
    } finally {
      await notifications.close();
    }
  });

  it('leaves a service that gives no document out of /docs and names it, instead of answering no page', async () => {
    const notifications = await documentServer(notificationsDocument());
    const broken = await documentServer('fail');
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [notifications.url], records: [broken.url] }), logger }));
    try {
      await request(app).get('/openapi.json').expect(503);
      const page = await request(app).get('/docs').expect(200);
      expect(page.text).toContain('id="listNotifications"');
      expect(page.text).toMatch(/class="missing">[^<]*records/);
    } finally {
      await notifications.close();
      await broken.close();
    }
  });

  it('serves Swagger UI from the package at /docs/try, reading the definitions', async () => {
    const app = express().use(apiDocsRouter({ services: () => ({}), logger }));
    const page = await request(app).get('/docs/try').expect(200);
    expect(page.text).toContain('id="swagger-ui"');
    // Every file the page loads is named absolutely and served from the package.
    const files = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      expect(file.startsWith('/docs/')).toBe(true);
      await request(app).get(file).expect(200);
    }
    const init = await request(app).get('/docs/swagger-initializer.js').expect(200);
    expect(init.text).toContain('urls: [{"url":"/docs/openapi/all.json","name":"all"}]');
  });

  it('sends the document compressed with an ETag, 304 for a current copy, also after the document was merged again', async () => {
    const notifications = await documentServer(notificationsDocument());
    let clock = 0;
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [notifications.url] }), logger, now: () => clock }));
    try {
      const plain = await request(app).get('/openapi.json').set('accept-encoding', 'identity').expect(200);
      const gzip = await request(app).get('/openapi.json').set('accept-encoding', 'gzip').expect(200);
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(gzip.body).toEqual(plain.body);
      const etag = String(plain.headers.etag);
      expect(etag).toMatch(/^"[\w-]{20,}"$/);
      expect(plain.headers['cache-control']).toBe('no-cache');
      await request(app).get('/openapi.json').set('if-none-match', etag).expect(304);
      // The Swagger UI bundle too.
      const bundle = await request(app).get('/docs/swagger-ui-bundle.js').set('accept-encoding', 'gzip').expect(200);
      expect(bundle.headers['content-encoding']).toBe('gzip');
      expect(bundle.headers.etag).toBeDefined();
      clock += 61_000;
      // Merged again from the same services: the same document, so the client's copy is still current.
      await request(app).get('/openapi.json').set('if-none-match', etag).expect(304);
      expect(notifications.hits()).toBe(2);
    } finally {
      await notifications.close();
    }
  });

  it('offers one definition per service to Swagger UI, shared answers referenced once and nothing lost', async () => {
    const notifications = await documentServer(notificationsDocument());
    const other = await documentServer(otherDocument);
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [notifications.url], other: [other.url] }), logger }));
    try {
      const init = await request(app).get('/docs/swagger-initializer.js').expect(200);
      expect(init.text).toContain(
        'urls: [{"url":"/docs/openapi/notifications.json","name":"notifications"},{"url":"/docs/openapi/other.json","name":"other"},{"url":"/docs/openapi/all.json","name":"all"}]',
      );
      const whole = (await request(app).get('/openapi.json').expect(200)).body as ApiDocument;
      const view = (await request(app).get('/docs/openapi/notifications.json').expect(200)).body as ApiDocument;
      expect(Object.keys(view.paths ?? {}).sort()).toEqual(
        // Every path of the notifications document (its saved searches and alert statistics too), none of the other's.
        Object.keys(whole.paths ?? {})
          .filter((p) => p in (notificationsDocument().paths ?? {}))
          .sort(),
      );
      const shared = (view.components?.responses ?? {}) as Record<string, unknown>;
      expect(Object.keys(shared).length).toBeGreaterThan(0);
      // Every reference, followed, gives back the whole document's answer of that operation.
      for (const [template, item] of Object.entries(view.paths ?? {})) {
        for (const [method, operation] of Object.entries(item as Record<string, { responses: Record<string, { $ref?: string }> }>)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            const resolved = response.$ref ? shared[response.$ref.replace('#/components/responses/', '')] : response;
            expect(resolved).toEqual(
              (whole.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[template][method].responses[status],
            );
          }
        }
      }
      const all = (await request(app).get('/docs/openapi/all.json').expect(200)).body as ApiDocument;
      expect(Object.keys(all.paths ?? {})).toEqual(Object.keys(whole.paths ?? {}));
      expect(JSON.stringify(all).length).toBeLessThan(JSON.stringify(whole).length);
      const unknown = await request(app).get('/docs/openapi/nothing.json').expect(404);
      expect(unknown.body.code).toBe('C0001');
    } finally {
      await Promise.all([notifications.close(), other.close()]);
    }
  });

  it("shows the gateway's 502 and a service's 500 as the envelopes really sent", async () => {
    const notifications = await documentServer(notificationsDocument());
    const app = express().use(apiDocsRouter({ services: () => ({ notifications: [notifications.url] }), logger }));
    try {
      const whole = (await request(app).get('/openapi.json').expect(200)).body as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { content: { 'application/json': { examples?: Record<string, { value: unknown }> } } }> }>
        >;
      };
      const operation = whole.paths['/api/v1/notifications'].get;
      const example = (status: string) => Object.values(operation.responses[status].content['application/json'].examples ?? {}).map((e) => e.value);
      expect(example('502')).toEqual([{ code: 'C0000', message: '서비스를 일시적으로 사용할 수 없습니다.' }]);
      expect(example('500')).toEqual([{ code: 'C0000', message: '예기치 못한 오류가 발생했습니다.' }]);
    } finally {
      await notifications.close();
    }
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
