/**
 * Checks answers against the API document: the operation must be documented, the status one it declares, and
 * the body valid against that status's schema. Every e2e request goes through it (test/support/e2e.ts), and the
 * contract tests assert that each operation of their service was exercised.
 *
 * The document is checked as OpenAPI 3.1 by swagger-parser; response bodies are validated by Ajv's JSON Schema
 * 2020-12 dialect, which is the schema dialect of OpenAPI 3.1 (the 3.0-only validators would misread it).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ApiDocument } from '@binzip/shared';
import { buildApiDocument } from '../../scripts/lib/openapi';

export interface ObservedAnswer {
  method: string;
  /** Path with or without a query string. */
  path: string;
  status: number;
  body: unknown;
}

interface DocumentedOperation {
  operationId: string;
  method: string;
  template: string;
  pattern: RegExp;
  tags: string[];
  /** Validator per documented status. */
  responses: Map<string, ValidateFunction | undefined>;
}

type JsonObject = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `/api/v1/boards/{boardId}` -> a regex over one path; templated segments match one segment. */
function templatePattern(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export class ApiContract {
  readonly covered = new Set<string>();

  private constructor(
    readonly document: ApiDocument,
    private readonly operations: DocumentedOperation[],
  ) {}

  /** Validates the document as OpenAPI 3.1, then compiles one validator per documented response. */
  static async create(document: ApiDocument = buildApiDocument()): Promise<ApiContract> {
    // Throws with the first problem when the document is not valid OpenAPI 3.1 (it works on a copy).
    await SwaggerParser.validate(structuredClone(document) as never);
    const compile = schemaCompiler(document);
    const operations: DocumentedOperation[] = [];
    for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, JsonObject>)) {
      for (const method of METHODS) {
        const op = item[method] as JsonObject | undefined;
        if (!op) continue;
        const responses = new Map<string, ValidateFunction | undefined>();
        for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, JsonObject>)) {
          const schema = ((response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
          responses.set(status, schema ? compile(schema) : undefined);
        }
        operations.push({
          operationId: typeof op.operationId === 'string' ? op.operationId : `${method} ${template}`,
          method,
          template,
          pattern: templatePattern(template),
          tags: (op.tags as string[] | undefined) ?? [],
          responses,
        });
      }
    }
    // A literal segment beats a templated one (`/boards/my` before `/boards/{boardId}`).
    operations.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
    return new ApiContract(document, operations);
  }

  /** The documented operation an answer belongs to, or undefined for paths the document does not describe. */
  operationOf(method: string, path: string): { operationId: string; template: string } | undefined {
    const pathname = path.split('?')[0] ?? path;
    return this.operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(pathname));
  }

  /** Throws a readable error unless the answer matches the document. */
  check(answer: ObservedAnswer): void {
    const where = `${answer.method} ${answer.path} -> ${answer.status}`;
    const pathname = answer.path.split('?')[0] ?? answer.path;
    const operation = this.operations.find((op) => op.method === answer.method.toLowerCase() && op.pattern.test(pathname));
    if (!operation) throw new Error(`${where}: no operation in the API document`);
    if (!operation.responses.has(String(answer.status))) {
      throw new Error(`${where}: status ${answer.status} is not documented for ${operation.operationId} (${[...operation.responses.keys()].join(', ')})`);
    }
    const validate = operation.responses.get(String(answer.status));
    if (validate && !validate(answer.body)) {
      throw new Error(
        `${where}: the body does not match ${operation.operationId}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(answer.body).slice(0, 1_000)}`,
      );
    }
    this.covered.add(operation.operationId);
  }

  /** Operation ids carrying `tag`. */
  operationsTagged(tag: string): string[] {
    return this.operations.filter((op) => op.tags.includes(tag)).map((op) => op.operationId);
  }

  uncovered(tag: string): string[] {
    return this.operationsTagged(tag).filter((id) => !this.covered.has(id));
  }
}

/**
 * A validator for any schema of `document` (an operation's body, parameter or answer), its `$ref`s resolved
 * against the document's components.
 */
export function schemaCompiler(document: ApiDocument): (schema: unknown) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // Component schemas are reachable under the document's own `$ref`s.
  ajv.addSchema({ $id: 'api', components: structuredClone(document.components ?? {}) });
  return (schema) => ajv.compile(rebase(structuredClone(schema)));
}

/** `#/components/...` inside an operation's schema points into the `api` schema registered by `schemaCompiler`. */
function rebase(schema: unknown): JsonObject {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node as JsonObject)) {
      out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `api${value}` : walk(value);
    }
    return out;
  };
  return walk(schema) as JsonObject;
}

let shared: Promise<ApiContract> | undefined;

/** One contract per test process (generating and compiling the document is not free). */
export function apiContract(): Promise<ApiContract> {
  return (shared ??= ApiContract.create());
}
