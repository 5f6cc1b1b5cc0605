import { DECLARED_ACCESS, type DeclaredAccess } from './declared-access';

/**
 * Who must be calling before the gateway reads a request's body: 'user' (a member's token) or 'admin', as the
 * services declare the operation (declared-access.ts, generated from their operations); `undefined` when the
 * request may be anyone's or names no declared operation (the service decides, after the body, as before).
 *
 * A path template matches as Express matches it in the service: fixed segments case-insensitively, `{param}` as
 * one non-empty segment. When several operations match (a fixed path and a `{param}` one), the least demanding
 * wins, so nothing the service would have let through is refused here.
 */
export function requiredAccess(method: string | undefined, path: string): 'user' | 'admin' | undefined {
  const candidates = TABLE.get((method ?? '').toUpperCase());
  if (candidates === undefined) return undefined;
  let required: 'user' | 'admin' | undefined;
  for (const { pattern, access } of candidates) {
    if (!pattern.test(path)) continue;
    if (access === 'public' || access === 'optional') return undefined;
    if (required === undefined || access === 'user') required = access;
  }
  return required;
}

const TABLE = compile(DECLARED_ACCESS);

function compile(rows: ReadonlyArray<readonly [string, string, DeclaredAccess]>): Map<string, Array<{ pattern: RegExp; access: DeclaredAccess }>> {
  const table = new Map<string, Array<{ pattern: RegExp; access: DeclaredAccess }>>();
  for (const [method, template, access] of rows) {
    const source = template
      .split('/')
      .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const list = table.get(method) ?? [];
    list.push({ pattern: new RegExp(`^${source}$`, 'i'), access });
    table.set(method, list);
  }
  return table;
}
