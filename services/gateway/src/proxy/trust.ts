import type http from 'node:http';
import proxyaddr from 'proxy-addr';

export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * `TRUST_PROXY` as a proxy-addr trust function, with Express's meanings: `false` (the default: nobody may
 * name the client, the peer address is the client), `true`, a hop count, or addresses/subnets/names such as
 * `loopback`, `uniquelocal`, `10.0.0.0/8`. Compiled once; the same function keys the flood limits and writes
 * `X-Forwarded-For`.
 */
export function compileTrust(value: string): TrustFunction {
  const normalized = value.trim().toLowerCase();
  if (normalized === '' || normalized === 'false') return () => false;
  if (normalized === 'true') return () => true;
  if (/^\d+$/.test(normalized)) {
    const hops = Number(normalized);
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );
}

/** The chain the gateway vouches for, client first: trusted `X-Forwarded-For` entries, then the peer. */
export function forwardedChain(req: http.IncomingMessage, trust: TrustFunction): string[] {
  if (!req.socket.remoteAddress) return [];
  return proxyaddr.all(req, trust).reverse();
}

/** The client address as far as the trusted proxies tell it (the peer when nobody is trusted). */
export function clientAddress(req: http.IncomingMessage, trust: TrustFunction): string {
  return req.socket.remoteAddress ? proxyaddr(req, trust) : 'unknown';
}

/** `X-Forwarded-Proto`/`-Host` only from a trusted peer, as Express's `req.protocol` and `req.host` do. */
export function forwardedProtoAndHost(req: http.IncomingMessage, trust: TrustFunction): { proto: string; host: string | undefined } {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const direct = { proto: encrypted ? 'https' : 'http', host: req.headers.host };
  if (!req.socket.remoteAddress || !trust(req.socket.remoteAddress, 0)) return direct;
  const first = (name: string) => {
    const value = req.headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    return text?.split(',')[0]?.trim() || undefined;
  };
  return { proto: first('x-forwarded-proto') ?? direct.proto, host: first('x-forwarded-host') ?? direct.host };
}
