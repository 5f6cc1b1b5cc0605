/**
 * The binzip API for front ends: `paths` and `components` are generated from the API document
 * (`npm run generate -w api-client`), calls go through openapi-fetch, so a path, a parameter or a body that the
 * document does not allow does not compile.
 *
 * The session follows the API's auth flow: sign-in's `access_token` (it starts with `Bearer `) is sent as the
 * whole `Authorization` value; when the API answers 401 J0002 (expired), the client calls reissue once with the
 * `RefreshToken` cookie and the old token, keeps the new token and repeats the call. In a browser the cookie is
 * the browser's (`credentials: 'include'`); elsewhere (Node, React Native without a cookie store) the client
 * keeps it from `Set-Cookie` and sends it itself. The token is kept in memory only (`session`); keeping it
 * across page loads or app starts is the caller's choice (`accessToken` option).
 *
 * Failures: `data()` rejects with `ApiError` for every answer that is not a success (the API's code and Korean
 * message, or `UNEXPECTED_ANSWER` when the answer is not the API's envelope, e.g. a proxy's error page); a call
 * that got no answer at all rejects with fetch's own error, so `instanceof ApiError` tells the two apart.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths } from './schema';
/** A named schema of the document, e.g. `Schema<'HouseListingDetail'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
/** The `data` of an operation's success envelope, e.g. `SuccessData<'/api/v1/houses/{houseId}', 'get'>`. */
export type SuccessData<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data?: infer D } } } };
}
  ? D
  : never;

/** The API's error envelope: a code from the contract's table and a Korean message to show as it is. */
export interface ErrorEnvelope {
  code: string;
  message: string;
}

/** `ApiError.code` of an answer that is not the API's envelope (a proxy's error page, an empty body). */
export const UNEXPECTED_ANSWER = 'HTTP';

/** A failed call: the HTTP status, the API's code (or `UNEXPECTED_ANSWER`) and the message to show as it is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface DeprecationNotice {
  method: string;
  url: string;
  /** `Deprecation` header (`@<unix seconds>`). */
  deprecation: string;
  /** `Sunset` header (an HTTP date), when given. */
  sunset?: string;
  /** `Link` header naming the successor, when given. */
  link?: string;
}

export interface BinzipClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:8080` (`npm start`) or `''` in a page the gateway serves. */
  baseUrl: string;
  fetch?: typeof fetch;
  /** A token kept from an earlier sign-in. */
  accessToken?: string | null;
  /** Told of every answer of a deprecated route (docs/versioning.md). */
  onDeprecation?: (notice: DeprecationNotice) => void;
  /**
   * Told when the session cannot be renewed (the refresh cookie is gone or spent), after the session is cleared:
   * show sign-in again. The call that found out still answers its 401 J0002 (`data()` rejects with it).
   */
  onSessionLost?: () => void;
}

const SIGN_IN = '/api/v1/users/sign-in';
const REISSUE = '/api/v1/users/reissue';
const LOGOUT = '/api/v1/users/logout';
const EXPIRED_TOKEN = 'J0002';
const REFRESH_COOKIE = 'RefreshToken';

/** The session a client holds: the access token and, outside browsers, the refresh cookie. */
export class Session {
  accessToken: string | null;
  refreshCookie: string | null = null;
  constructor(accessToken: string | null = null) {
    this.accessToken = accessToken;
  }
  clear(): void {
    this.accessToken = null;
    this.refreshCookie = null;
  }
}

/** The `data` member of a success envelope; `undefined` for envelopes without one. */
export type DataOf<E> = 'data' extends keyof E ? E['data' & keyof E] : undefined;

export interface BinzipClient {
  /** openapi-fetch's typed `GET`/`POST`/`PUT`/`DELETE`, e.g. `api.GET('/api/v1/houses/{houseId}', { params: { path: { houseId: 3 } } })`. */
  api: Client<paths>;
  session: Session;
  /** Signs in and keeps the token (and the refresh cookie); answers the token, or rejects with `ApiError`. */
  signIn: (userName: string, password: string) => Promise<string>;
  /**
   * Ends the session on the server too (logout clears the refresh cookie), then drops it here. Never rejects:
   * a session the server already ended, or a server out of reach, leaves nothing to do but forget it.
   */
  signOut: () => Promise<void>;
  /** Exchanges the refresh cookie for a new access token (done by itself on 401 J0002). */
  reissue: () => Promise<boolean>;
  /** The `data` of a success answer (undefined when it has none), or rejects with `ApiError` (see the module's comment). */
  data: <E extends object>(call: Promise<{ data?: E; error?: unknown; response: Response }>) => Promise<DataOf<E>>;
}

function pathOf(url: string): string {
  return new URL(url, 'http://client.invalid').pathname;
}

/** The `RefreshToken=...` pair from an answer's `Set-Cookie` lines, where the runtime lets us read them. */
function refreshCookieOf(response: Response): string | null | undefined {
  const lines = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
  for (const line of lines) {
    const pair = line.split(';')[0].trim();
    if (pair.startsWith(`${REFRESH_COOKIE}=`)) return pair.length > REFRESH_COOKIE.length + 1 ? pair : null;
  }
  return undefined;
}

export function createBinzipClient(options: BinzipClientOptions): BinzipClient {
  const fetchImpl = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init));
  const session = new Session(options.accessToken ?? null);
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl, credentials: 'include' });
  /** Copies of requests with a body, to send again after a renewal (a body can be read once). */
  const replays = new Map<string, Request>();
  let renewal: Promise<boolean> | null = null;

  const withSession = (request: Request): Request => {
    const isReissue = pathOf(request.url) === REISSUE;
    if (session.accessToken && !isReissue) request.headers.set('Authorization', session.accessToken);
    // Browsers refuse to set Cookie (theirs is sent by `credentials`); Node and native runtimes send ours.
    if (session.refreshCookie && (isReissue || pathOf(request.url) === LOGOUT)) request.headers.set('Cookie', session.refreshCookie);
    return request;
  };

  const keep = async (response: Response): Promise<void> => {
    const path = pathOf(response.url);
    const cookie = refreshCookieOf(response);
    if (cookie !== undefined) session.refreshCookie = cookie;
    if ((path === SIGN_IN || path === REISSUE) && response.ok) {
      const body = (await response.clone().json()) as { data?: { access_token?: string } };
      if (body.data?.access_token) session.accessToken = body.data.access_token;
    }
  };

  const reissue = (): Promise<boolean> => {
    renewal ??= (async () => {
      try {
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (session.refreshCookie) headers.Cookie = session.refreshCookie;
        const response = await fetchImpl(`${options.baseUrl}${REISSUE}`, {
          method: 'POST',
          headers,
          credentials: 'include',
          body: JSON.stringify({ access_token: session.accessToken ?? '' }),
        });
        if (!response.ok) return false;
        await keep(response);
        return true;
      } catch {
        return false;
      } finally {
        renewal = null;
      }
    })();
    return renewal;
  };

  const middleware: Middleware = {
    onRequest({ request, id }) {
      withSession(request);
      if (request.body !== null) replays.set(id, request.clone());
      return request;
    },
    async onResponse({ request, response, id }) {
      const replay = replays.get(id);
      replays.delete(id);
      const deprecation = response.headers.get('Deprecation');
      if (deprecation) {
        options.onDeprecation?.({
          method: request.method,
          url: request.url,
          deprecation,
          sunset: response.headers.get('Sunset') ?? undefined,
          link: response.headers.get('Link') ?? undefined,
        });
      }
      await keep(response);
      if (response.status !== 401 || !session.accessToken || pathOf(request.url) === REISSUE || pathOf(request.url) === SIGN_IN) return response;
      const body = (await response.clone().json()) as Partial<ErrorEnvelope>;
      if (body.code !== EXPIRED_TOKEN) return response;
      if (!(await reissue())) {
        session.clear();
        options.onSessionLost?.();
        return response;
      }
      return fetchImpl(withSession(new Request(replay ?? request)));
    },
    onError({ id }) {
      replays.delete(id);
    },
  };
  api.use(middleware);

  const data = async <E extends object>(call: Promise<{ data?: E; error?: unknown; response: Response }>): Promise<DataOf<E>> => {
    const { data: envelope, error, response } = await call;
    if (error !== undefined || !envelope) {
      const failure = (error ?? {}) as Partial<ErrorEnvelope>;
      if (typeof failure.code === 'string' && typeof failure.message === 'string') throw new ApiError(response.status, failure.code, failure.message);
      throw new ApiError(response.status, UNEXPECTED_ANSWER, `HTTP ${response.status}`);
    }
    return (envelope as { data?: unknown }).data as DataOf<E>;
  };

  return {
    api,
    session,
    reissue,
    data,
    signIn: async (userName, password) => {
      const token = await data(api.POST(SIGN_IN, { body: { userName, password } }));
      session.accessToken = token.access_token;
      return token.access_token;
    },
    signOut: async () => {
      try {
        if (session.accessToken) await data(api.POST(LOGOUT));
      } catch {
        // Already ended (or unreachable): forgetting it is all that is left.
      } finally {
        session.clear();
      }
    },
  };
}
