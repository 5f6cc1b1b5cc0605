/**
 * A Bruno collection generated from the API document (`api-collection/`, written by `npm run api:release` with
 * the release snapshot, so the collection always matches the released document): one request per operation,
 * grouped by tag, with its path and query parameters, a body built from the request schema, the
 * `Authorization: {{accessToken}}` header where a token is needed, and an environment for `npm start`'s gateway.
 * Sign-in and reissue keep the returned access token in the environment. Files are written with Bruno's own
 * serializer (@usebruno/lang).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { envJsonToBruV2, jsonToBruV2 } from '@usebruno/lang';
import type { ApiDocument } from '@binzip/shared';
import { DEFAULT_PORTS } from './system';

export const COLLECTION_DIR = path.resolve(__dirname, '..', '..', 'api-collection');
export const LOCAL_GATEWAY = `http://127.0.0.1:${DEFAULT_PORTS.gateway}`;

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const KEEP_TOKEN = 'if (res.status === 200 && res.body && res.body.data) {\n  bru.setEnvVar("accessToken", res.body.data.access_token);\n}';

/** A value of the schema's shape to start from: its example, default, first enum value or a blank of its type. */
export function sampleOf(schema: Json | undefined, components: Json, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (typeof schema.$ref === 'string') return sampleOf(components[schema.$ref.split('/').pop()!] as Json, components, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null;
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const options = schema[key] as Json[] | undefined;
    if (options?.length) {
      if (key === 'allOf') return Object.assign({}, ...options.map((option) => sampleOf(option, components, depth + 1) as object));
      return sampleOf(options.find((option) => option.type !== 'null') ?? options[0], components, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, sub]) => [name, sampleOf(sub, components, depth + 1)]),
      );
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    default:
      return null;
  }
}

interface Operation {
  method: (typeof METHODS)[number];
  template: string;
  op: Json;
}

function operationsOf(document: ApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) if (item[method]) operations.push({ method, template, op: item[method] as Json });
  }
  return operations;
}

const needsToken = (op: Json) => ((op.security ?? []) as Json[]).some((requirement) => 'bearerAuth' in requirement);

function request({ method, template, op }: Operation, seq: number, components: Json): Json {
  const parameters = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: Json }>;
  const params = parameters
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p) => ({
      name: p.name,
      value:
        p.in === 'path'
          ? JSON.stringify(sampleOf(p.schema, components) ?? 1)
          : p.schema?.default === undefined
            ? ''
            : String(p.schema.default as string | number),
      type: p.in,
      // Optional query parameters are there to switch on.
      enabled: p.in === 'path' || p.required === true || p.schema?.default !== undefined,
    }));
  const schema = (((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
  const operationId = String(op.operationId);
  const keepsToken = operationId === 'signIn' || operationId === 'reissueTokens';
  return {
    meta: { name: `${typeof op.summary === 'string' ? op.summary : operationId} (${operationId})`, type: 'http', seq },
    http: { method, url: `{{baseUrl}}${template.replace(/\{(\w+)\}/g, ':$1')}`, body: schema ? 'json' : 'none', auth: 'none' },
    params,
    headers: needsToken(op) ? [{ name: 'Authorization', value: '{{accessToken}}', enabled: true }] : [],
    ...(schema
      ? { body: { json: JSON.stringify(operationId === 'reissueTokens' ? { access_token: '{{accessToken}}' } : sampleOf(schema, components), null, 2) } }
      : {}),
    ...(keepsToken ? { script: { res: KEEP_TOKEN } } : {}),
    docs: typeof op.description === 'string' ? op.description : '',
  };
}

/** Writes the collection for `document` into `dir` (replacing what was there). */
export function writeCollection(document: ApiDocument, dir = COLLECTION_DIR): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'environments'), { recursive: true });
  writeFileSync(
    path.join(dir, 'bruno.json'),
    `${JSON.stringify({ version: '1', name: document.info.title, type: 'collection', ignore: ['node_modules', '.git'] }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(dir, 'environments', 'local.bru'),
    envJsonToBruV2({
      variables: [
        { name: 'baseUrl', value: LOCAL_GATEWAY, enabled: true, secret: false },
        // Filled by the sign-in request: the whole `Bearer ...` value.
        { name: 'accessToken', value: '', enabled: true, secret: false },
      ],
    }),
  );
  const components = ((document.components ?? {}) as Json).schemas as Json;
  const seqByTag = new Map<string, number>();
  for (const operation of operationsOf(document)) {
    const tag = ((operation.op.tags ?? ['other']) as string[])[0];
    const seq = (seqByTag.get(tag) ?? 0) + 1;
    seqByTag.set(tag, seq);
    mkdirSync(path.join(dir, tag), { recursive: true });
    writeFileSync(path.join(dir, tag, `${String(operation.op.operationId)}.bru`), jsonToBruV2(request(operation, seq, components)));
  }
}
