/**
 * The console's session: the typed client package (@binzip/api-client) with the console's choices. The access
 * token lives in the client's memory only (never in storage, so closing the tab signs out); the package renews it
 * once through reissue with the refresh cookie when the API says it expired (401 J0002), and a session that
 * cannot be renewed signs the console out.
 */
import { createBinzipClient, type BinzipClient } from '@binzip/api-client';

export const NETWORK_ERROR_MESSAGE = '서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.';
export const SESSION_EXPIRED_MESSAGE = '로그인이 만료되었습니다. 다시 로그인해 주세요.';

/** The gateway serves the console, so calls go to the page's own origin. */
export function createConsoleClient(onSessionLost: () => void): BinzipClient {
  return createBinzipClient({ baseUrl: '', onSessionLost });
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
