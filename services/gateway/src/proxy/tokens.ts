import { LRUCache } from 'lru-cache';
import { AppError, BEARER_PREFIX, verifyAccessJwt } from '@binzip/shared/core';

/**
 * Verifies `Authorization` headers before anything is forwarded, remembering each verified token until its own
 * expiry in a bounded LRU: a member's next requests cost a map look-up instead of an ES256 verification. Only
 * successes are kept (a bad token is verified, and refused, every time), and an entry never outlives the
 * token's `exp`, so an expired token gets J0002 exactly as without the cache.
 */
export class TokenVerifier {
  /** Header -> the token's expiry (ms). */
  private readonly verified: LRUCache<string, number>;

  constructor(
    private readonly publicKey: string,
    maxEntries = 10_000,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.verified = new LRUCache<string, number>({ max: maxEntries });
  }

  /** Throws the J-code AppError of a bad header; returns for an absent or valid one. */
  check(header: string | undefined): void {
    if (header === undefined || header === '') return;
    const known = this.verified.get(header);
    if (known !== undefined) {
      if (known > this.now()) return;
      this.verified.delete(header);
    }
    if (!header.startsWith(BEARER_PREFIX)) throw new AppError('J0004');
    const token = header.slice(BEARER_PREFIX.length).trim();
    verifyAccessJwt(token, this.publicKey);
    const expiresAt = expiryOf(token);
    if (expiresAt !== undefined && expiresAt > this.now()) this.verified.set(header, expiresAt);
  }

  get size(): number {
    return this.verified.size;
  }
}

/** `exp` of a token that has just been verified (so its payload is well-formed JSON), in ms. */
function expiryOf(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp?: unknown };
  return typeof exp === 'number' ? exp * 1000 : undefined;
}
