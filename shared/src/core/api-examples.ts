import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiDocument } from './openapi';

/**
 * Examples of the API document recorded from the end-to-end tests' real answers (`npm run api:examples` writes
 * `contracts/examples/<service>.json`), attached to the document by operationId. They are data, not code: the
 * operations may be declared however the services like, the examples find them by id.
 */

/** One operation's recorded request and answers. */
export interface OperationExamples {
  /** The request that got the success answer below (path and query values as sent, the JSON body). */
  request?: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown };
  /** Answer bodies by HTTP status, then by envelope code (`SUCCESS` for 200). */
  responses: Record<string, Record<string, unknown>>;
}

/** Every operation's examples, by operationId. */
export type ApiExamples = Record<string, OperationExamples>;

/** The examples files of a directory merged (one file per service); none when the directory is absent. */
export function readApiExamples(dir: string): ApiExamples {
  if (!existsSync(dir)) return {};
  const examples: ApiExamples = {};
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    Object.assign(examples, JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ApiExamples);
  }
  return examples;
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** A query or path value as sent (always a string) in the type its parameter declares, so it validates. */
function parameterValue(value: string, schema: Json | undefined): unknown {
  const types = [schema?.type].flat();
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const messageOf = (envelope: unknown): string => {
  const message = (envelope as Json | null)?.message;
  return typeof message === 'string' ? message : '';
};

/**
 * A copy of `document` with the examples of every operation it has: the request body's `example`, each
 * parameter's `example`, the success answer's `example`, and one named entry per error code in its status's
 * `examples` (a status groups several codes). Examples of operations or codes the document does not list are
 * left out here; the examples test reports them.
 */
export function attachApiExamples(document: ApiDocument, examples: ApiExamples): ApiDocument {
  const copy = structuredClone(document);
  for (const item of Object.values((copy.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      const recorded = typeof operation?.operationId === 'string' ? examples[operation.operationId] : undefined;
      if (!operation || !recorded) continue;
      const request = recorded.request ?? {};
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const values = parameter.in === 'path' ? request.params : parameter.in === 'query' ? request.query : undefined;
        const value = values?.[String(parameter.name)];
        if (value !== undefined) parameter.example = parameterValue(value, parameter.schema as Json | undefined);
      }
      const bodyContent = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      if (request.body !== undefined && bodyContent['application/json']) bodyContent['application/json'].example = request.body;
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        const byCode = recorded.responses[status];
        if (!media || !byCode) continue;
        const listed = ((media.schema as Json | undefined)?.properties as Record<string, Json> | undefined)?.code?.enum as unknown[] | undefined;
        const entries = Object.entries(byCode).filter(([code]) => !listed || listed.includes(code));
        if (entries.length === 0) continue;
        if (status === '200') media.example = entries[0][1];
        else media.examples = Object.fromEntries(entries.map(([code, value]) => [code, { summary: `${code}: ${messageOf(value)}`, value }]));
      }
    }
  }
  return copy;
}
