import { routeFor } from './upstreams';

/** RFC 3986 unreserved characters: their percent-encoded and plain spellings are the same path. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The one canonical spelling of a request path, computed once per request (decisions.md, "Content and the
 * edge"): `\` is `/`, empty segments (`//`) and `.` segments go, `..` removes the segment before it,
 * percent-encoded unreserved characters are decoded (other escapes keep upper-case hex), a trailing `/` goes,
 * and the route prefix (the fixed part) is lower case. Every later decision (route, token exemption, limits)
 * and the upstream see only this form, so no spelling reaches a handler while dodging the gateway's rules.
 * `undefined`: not a path at all (a `..` above the root, a broken escape) — answered 400.
 */
export function canonicalPath(raw: string): string | undefined {
  return canonicalRoute(raw)?.path;
}

type Route = NonNullable<ReturnType<typeof routeFor>>;

/** `canonicalPath` with the route owning the path (looked up once, for both the prefix's case and routing). */
function canonicalRoute(raw: string): { path: string; route: Route | undefined } | undefined {
  let path = raw.includes('\\') ? raw.replace(/\\/g, '/') : raw;
  if (path.includes('%')) {
    let broken = false;
    path = path.replace(/%(..)?/g, (_match, hex: string | undefined) => {
      if (hex === undefined || !/^[0-9A-Fa-f]{2}$/.test(hex)) {
        broken = true;
        return '';
      }
      const char = String.fromCharCode(parseInt(hex, 16));
      return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
    });
    if (broken) return undefined;
  }
  if (path.includes('//') || path.includes('/.') || (path.length > 1 && path.endsWith('/'))) {
    const segments: string[] = [];
    for (const segment of path.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (segments.length === 0) return undefined;
        segments.pop();
        continue;
      }
      segments.push(segment);
    }
    path = `/${segments.join('/')}`;
  }
  const route = routeFor(path);
  if (route && !path.startsWith(route.prefix)) path = route.prefix + path.slice(route.prefix.length);
  return { path, route };
}

/**
 * Splits an origin-form request target into its canonical path and its query (with the `?`, or empty), with
 * the route owning the path (`undefined`: one of the gateway's own pages).
 */
export function canonicalTarget(raw: string): { path: string; query: string; route: Route | undefined } | undefined {
  // A fragment is the client's own business and never part of what is forwarded.
  const hash = raw.indexOf('#');
  const target = hash === -1 ? raw : raw.slice(0, hash);
  const mark = target.indexOf('?');
  const canonical = canonicalRoute(mark === -1 ? target : target.slice(0, mark));
  return canonical === undefined ? undefined : { path: canonical.path, route: canonical.route, query: mark === -1 ? '' : target.slice(mark) };
}
