/**
 * The HTTP side of the console: the `{code, message, data}` envelope, the access token kept in memory only
 * (never in storage, so closing the tab signs out), and one transparent renewal through reissue with the
 * refresh cookie when the API says the token expired (401 J0002).
 */

export interface Envelope<T> {
  code: string;
  message: string;
  data?: T;
}

/** A failed call: the API's code and its Korean message, which the screens show as they are. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Send the access token (default true). */
  auth?: boolean;
}

export const NETWORK_ERROR_MESSAGE = '서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.';
export const SESSION_EXPIRED_MESSAGE = '로그인이 만료되었습니다. 다시 로그인해 주세요.';

const EXPIRED_TOKEN = 'J0002';

export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export class ApiClient {
  private accessToken: string | null = null;
  /** One reissue at a time: parallel calls that all saw J0002 wait for the same renewal. */
  private renewal: Promise<boolean> | null = null;

  constructor(
    private readonly baseUrl = '',
    private readonly fetchImpl: typeof fetch = (input, init) => fetch(input, init),
    /** Told when the session cannot be renewed, so the app can show the sign-in form again. */
    private readonly onSessionLost: () => void = () => undefined,
  ) {}

  get token(): string | null {
    return this.accessToken;
  }

  async signIn(userName: string, password: string): Promise<string> {
    const data = await this.request<{ access_token: string }>('POST', '/api/v1/users/sign-in', { body: { userName, password }, auth: false });
    this.accessToken = data.access_token;
    return data.access_token;
  }

  /** Ends the session on the server too (the refresh cookie is cleared); the local token is dropped regardless. */
  async signOut(): Promise<void> {
    try {
      if (this.accessToken) await this.request<void>('POST', '/api/v1/users/logout', {});
    } catch {
      // An expired or revoked session is already over.
    } finally {
      this.accessToken = null;
    }
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const first = await this.send<T>(method, path, options);
    if (first.status === 401 && first.envelope.code === EXPIRED_TOKEN && options.auth !== false) {
      if (await this.renew()) return this.unwrap(await this.send<T>(method, path, options));
      this.accessToken = null;
      this.onSessionLost();
      throw new ApiError(EXPIRED_TOKEN, SESSION_EXPIRED_MESSAGE, 401);
    }
    return this.unwrap(first);
  }

  private renew(): Promise<boolean> {
    this.renewal ??= (async () => {
      try {
        const res = await this.send<{ access_token: string }>('POST', '/api/v1/users/reissue', { body: { access_token: this.accessToken ?? '' }, auth: false });
        if (res.status !== 200 || !res.envelope.data) return false;
        this.accessToken = res.envelope.data.access_token;
        return true;
      } catch {
        return false;
      } finally {
        this.renewal = null;
      }
    })();
    return this.renewal;
  }

  private unwrap<T>(res: { status: number; envelope: Envelope<T> }): T {
    if (res.status >= 200 && res.status < 300 && res.envelope.code === 'SUCCESS') return res.envelope.data as T;
    throw new ApiError(res.envelope.code, res.envelope.message, res.status);
  }

  private async send<T>(method: string, path: string, options: RequestOptions): Promise<{ status: number; envelope: Envelope<T> }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json;charset=UTF-8';
    if (options.auth !== false && this.accessToken) headers.Authorization = this.accessToken;
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${withQuery(path, options.query)}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        // The refresh cookie rides along on sign-in, reissue and logout.
        credentials: 'include',
      });
    } catch {
      throw new ApiError('NETWORK', NETWORK_ERROR_MESSAGE, 0);
    }
    let envelope: Envelope<T>;
    try {
      envelope = (await res.json()) as Envelope<T>;
    } catch {
      throw new ApiError('HTTP', `알 수 없는 오류가 발생했습니다. (HTTP ${res.status})`, res.status);
    }
    if (typeof envelope?.code !== 'string') throw new ApiError('HTTP', `알 수 없는 오류가 발생했습니다. (HTTP ${res.status})`, res.status);
    return { status: res.status, envelope };
  }
}

export interface TokenClaims {
  userId: number;
  userName: string;
  authority: 'USER' | 'ADMIN';
  userType: string;
}

/**
 * Reads the access token's claims to decide what to show. Only a hint for the screen: every admin endpoint
 * checks the signature and the authority itself.
 */
export function readClaims(token: string): TokenClaims | null {
  try {
    const payload = token.replace(/^Bearer /, '').split('.')[1];
    if (!payload) return null;
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const json = JSON.parse(new TextDecoder().decode(bytes)) as { sub?: string; userName?: string; authority?: string; userType?: string };
    if (json.authority !== 'USER' && json.authority !== 'ADMIN') return null;
    return { userId: Number(json.sub), userName: json.userName ?? '', authority: json.authority, userType: json.userType ?? '' };
  } catch {
    return null;
  }
}
