import { createHash } from 'node:crypto';
import path from 'node:path';
import compression from 'compression';
import express, { Router, type Request, type Response } from 'express';
// The package's index loads the whole Swagger UI bundle into the process (~40 MB RSS); only its folder is needed.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path';
import { apiReferencePage } from './api-reference';
import { docsPolicy } from './page-policies';
import {
  attachApiExamples,
  errorEnvelope,
  ErrorCodes,
  GatewayFaults,
  mergeApiDocuments,
  readApiExamples,
  type ApiDocument,
  type ApiExamples,
  type Logger,
} from '@binzip/shared/core';

export const API_INFO = {
  title: 'binzip API',
  version: '1.0.0',
  description: [
    '커뮤니티·빈집 매물 서비스의 공개 API와 관리자 API. 모든 응답은 `{code, message, data?}` 봉투이며, ' +
      '오류는 코드와 한국어 메시지로 답한다. 게이트웨이를 거치는 모든 요청에 413/502/503/504가 더해질 수 있다.',
    '## 인증 흐름',
    '1. `POST /api/v1/users/sign-in`: 성공 응답의 `data.access_token`은 `Bearer `로 시작하는 값 그대로 ' +
      '`Authorization` 헤더에 넣는다 (예: `Authorization: Bearer eyJ...`). 같은 응답이 `RefreshToken` 쿠키를 ' +
      '설정한다 (HttpOnly, Secure, SameSite=None, 7일).',
    '2. access token은 30분 뒤 만료되어 401 J0002로 답한다. 그때 `POST /api/v1/users/reissue`를 ' +
      '본문 `{access_token: <만료된 access_token>}`과 `RefreshToken` 쿠키로 (브라우저: `credentials: "include"`) ' +
      '호출하면 새 `access_token`을 주고 쿠키를 교체한다. 교체된 쿠키는 다시 쓸 수 없다.',
    '3. `POST /api/v1/users/logout`은 쿠키를 지운다.',
    '`/docs/try`(Swagger UI)의 Authorize에는 로그인이 준 `access_token`을 그대로 붙여 넣는다 (`Bearer `가 붙어 있어도 된다).',
    '## 페이지',
    '목록의 `page`는 0부터 시작하고 (`page=0`이 첫 페이지), `size`의 기본값과 최댓값은 각 목록의 매개변수에 적혀 있다. ' + '알림함은 `id` 커서로 넘긴다.',
  ].join('\n\n'),
};

/** Where the document's operations are called: the gateway that served it, or `npm start`'s one. */
export const API_SERVERS = [
  { url: '/', description: '이 문서를 준 게이트웨이' },
  { url: 'http://127.0.0.1:8080', description: '`npm start`의 로컬 게이트웨이' },
];

/**
 * The examples recorded from real answers (`npm run api:examples`), in the repository's `contracts/examples`
 * (the same depth from `src/routes` and `dist/routes`; the image copies the folder to the same place).
 */
export const API_EXAMPLES_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'contracts', 'examples');

/**
 * The order the merged document presents the services' tags in (readers' order: members, then each area with its
 * administrators' tags); the descriptions are the services' (`apiTags` in each service's `src/routes/index.ts`).
 * A tag not listed here comes last.
 */
export const API_TAG_ORDER = [
  'users',
  'agents',
  'admin-users',
  'admin-withdrawals',
  'admin-stats',
  'admin-stats-notifications',
  'saved-searches',
  'boards',
  'comments',
  'loves',
  'admin-boards',
  'houses',
  'scraps',
  'house-approval',
  'admin-reports',
  'admin-audit',
  'admin-stats-houses',
  'notifications',
  'records',
  'record-reviews',
  'record-comments',
  'record-templates',
  'pictures',
];

/** The one API document: the services' documents merged, with the recorded examples attached by operationId. */
export function apiDocumentOf(documents: ApiDocument[], examples: ApiExamples = readApiExamples(API_EXAMPLES_DIR)): ApiDocument {
  return attachApiExamples(mergeApiDocuments(documents, API_INFO, API_SERVERS, API_TAG_ORDER), examples);
}

/** How long a merged document is reused; the services' documents only change with a deployment. */
const DOCUMENT_TTL_MS = 60_000;
const FETCH_TIMEOUT_MS = 3_000;

export interface ApiDocsOptions {
  /** The current instance URLs of each service; the first one that answers gives the service's document. */
  services: () => Record<string, readonly string[]>;
  logger: Logger;
  now?: () => number;
}

async function fetchDocument(urls: readonly string[]): Promise<ApiDocument> {
  let lastError: unknown;
  for (const url of urls) {
    try {
      const res = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (res.ok) return (await res.json()) as ApiDocument;
      lastError = new Error(`${url}/openapi.json answered ${res.status}`);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** A serialized document with its strong ETag, made once per merge. */
interface Served {
  body: string;
  etag: string;
}

function served(document: unknown): Served {
  return servedText(JSON.stringify(document));
}

function servedText(body: string): Served {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}

/** Compressed when the client accepts it; 304 when its copy is current (`If-None-Match`); revalidated each time. */
function sendServed(req: Request, res: Response, document: Served): void {
  res.set({ etag: document.etag, 'cache-control': 'no-cache' }).type('application/json');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.send(document.body);
}

type JsonObject = Record<string, unknown>;
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/**
 * The same document for Swagger UI, lighter to read: every response object that several operations answer
 * identically (the gateway's 413/502/503/504, the guards' 401/403/429 …) moved once into
 * `components.responses` and referenced. Swagger UI's OpenAPI 3.1 resolver walks the whole document on load and
 * on each opened operation, so its size is the page's waiting time; the references lose nothing.
 */
export function withSharedResponses(document: ApiDocument): ApiDocument {
  const copy = structuredClone(document);
  const seen = new Map<string, number>();
  const operations = Object.values((copy.paths ?? {}) as Record<string, JsonObject>).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([, operation]) => operation as JsonObject),
  );
  for (const operation of operations) {
    for (const response of Object.values((operation.responses ?? {}) as JsonObject)) {
      const key = JSON.stringify(response);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  const shared: JsonObject = { ...(copy.components?.responses ?? {}) };
  const names = new Map<string, string>();
  for (const operation of operations) {
    const responses = (operation.responses ?? {}) as JsonObject;
    for (const [status, response] of Object.entries(responses)) {
      const key = JSON.stringify(response);
      if ((seen.get(key) ?? 0) < 2) continue;
      let name = names.get(key);
      if (!name) {
        const codes = (((response as JsonObject).content as Record<string, JsonObject> | undefined)?.['application/json']?.schema as JsonObject | undefined)
          ?.properties as Record<string, { enum?: string[] }> | undefined;
        const base = [`Answer${status}`, ...(codes?.code?.enum ?? [])].join('_');
        name = base;
        for (let i = 2; name in shared; i += 1) name = `${base}_${i}`;
        shared[name] = response;
        names.set(key, name);
      }
      responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  copy.components = { ...(copy.components ?? {}), responses: shared } as ApiDocument['components'];
  return copy;
}

/**
 * `/openapi.json`: the services' own documents merged into one, so the document always describes the versions
 * that are deployed (compressed, with an ETag). `/docs`: the reference as plain HTML rendered from that document
 * (api-reference.ts). `/docs/try`: Swagger UI from the swagger-ui-dist package, served from here (no CDN),
 * offering one definition per service (`/docs/openapi/<service>.json`, with shared responses
 * referenced, see `withSharedResponses`) and the whole document (`/docs/openapi/all.json`).
 */
export function apiDocsRouter(options: ApiDocsOptions): Router {
  const now = options.now ?? Date.now;
  interface Merged {
    at: number;
    document: Served;
    /** Swagger UI's definitions, made on first request. */
    views: Map<string, Served>;
    /** The reference page (`/docs`), made on first request. */
    page?: Served;
    byService: Record<string, ApiDocument>;
    whole: ApiDocument;
  }
  let cached: Merged | undefined;
  let inFlight: Promise<Merged> | undefined;
  // Read once: the examples change with a deployment, like the services' documents.
  const examples = readApiExamples(API_EXAMPLES_DIR);

  const merged = async (): Promise<Merged> => {
    if (cached && now() - cached.at < DOCUMENT_TTL_MS) return cached;
    inFlight ??= Promise.all(Object.entries(options.services()).map(async ([name, urls]) => [name, await fetchDocument(urls)] as const))
      .then((documents) => {
        const whole = apiDocumentOf(
          documents.map(([, document]) => document),
          examples,
        );
        cached = { at: now(), document: served(whole), views: new Map(), byService: Object.fromEntries(documents), whole };
        return cached;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const unavailable = (res: Response, err: unknown) => {
    options.logger.warn('API document unavailable', { error: err instanceof Error ? err.message : String(err) });
    res.status(GatewayFaults.unavailable.status).json(errorEnvelope(GatewayFaults.unavailable.code, GatewayFaults.unavailable.message));
  };

  const router = Router();
  // Only these pages: 0.5 MB of JSON and Swagger UI's 1.5 MB of script are a fifth of that compressed.
  router.use(['/openapi.json', '/docs'], compression());
  router.get('/openapi.json', async (req, res) => {
    try {
      sendServed(req, res, (await merged()).document);
    } catch (err) {
      unavailable(res, err);
    }
  });

  router.use('/docs', docsPolicy);
  router.get('/docs/openapi/:view.json', async (req, res) => {
    try {
      const current = await merged();
      const view = req.params.view;
      if (view !== 'all' && !(view in current.byService)) {
        res.status(404).json(errorEnvelope('C0001', ErrorCodes.C0001.message));
        return;
      }
      let document = current.views.get(view);
      if (!document) {
        document = served(withSharedResponses(view === 'all' ? current.whole : apiDocumentOf([current.byService[view]], examples)));
        current.views.set(view, document);
      }
      sendServed(req, res, document);
    } catch (err) {
      unavailable(res, err);
    }
  });
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res
      .type('application/javascript')
      .set('cache-control', 'no-cache')
      .send(swaggerInitializer(Object.keys(options.services())));
  });
  // The reference, usable as soon as it arrives (see api-reference.ts), made once per merge.
  router.get('/docs', async (req, res) => {
    let page: Served;
    try {
      const current = await merged();
      page = current.page ??= servedText(apiReferencePage(current.whole));
    } catch {
      // A service that does not answer leaves its part out (named on the page) instead of the whole reference,
      // as Swagger UI's per-service definitions do; not cached, the next request tries them all again.
      const services = Object.entries(options.services());
      const settled = await Promise.allSettled(services.map(([, urls]) => fetchDocument(urls)));
      const answered = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const missing = services.filter((_, i) => settled[i].status === 'rejected').map(([name]) => name);
      page = servedText(apiReferencePage(apiDocumentOf(answered, examples), missing));
    }
    res.set({ etag: page.etag, 'cache-control': 'no-cache' }).type('html');
    if (req.fresh) res.status(304).end();
    else res.send(page.body);
  });
  // Swagger UI, to call the API from the browser. The gateway serves `/docs/try/` as `/docs/try` (one canonical
  // path), so the page names its files absolutely instead of relying on the package's relative index.html.
  router.get('/docs/try', (_req, res) => {
    res.type('html').set('cache-control', 'no-cache').send(SWAGGER_PAGE);
  });
  router.use('/docs', express.static(getAbsoluteFSPath(), { index: false, maxAge: '1h' }));
  return router;
}

const SWAGGER_PAGE = `<!DOCTYPE html>
<html lang="ko">
  <head>
    <meta charset="UTF-8" />
    <title>binzip API</title>
    <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="/docs/index.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/docs/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/** Swagger UI's set-up: one definition per service first (fast to open), the whole document last. */
function swaggerInitializer(services: string[]): string {
  const urls = [...services.map((name) => ({ url: `/docs/openapi/${name}.json`, name })), { url: '/docs/openapi/all.json', name: 'all' }];
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(urls)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No badge fetched from swagger.io's validator: the page loads nothing from elsewhere (see page-policies.ts).
    validatorUrl: null,
    withCredentials: true,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    // Sign-in's access_token already starts with "Bearer " and Swagger UI adds its own for a bearer scheme:
    // the token pasted exactly as sign-in returns it must work, so a doubled prefix is sent once.
    requestInterceptor: function (request) {
      var auth = request.headers && request.headers.Authorization;
      if (typeof auth === 'string') request.headers.Authorization = auth.replace(/^Bearer\\s+(?:Bearer\\s+)+/i, 'Bearer ');
      return request;
    },
  });
};
`;
}
