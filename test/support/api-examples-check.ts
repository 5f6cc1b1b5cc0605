/**
 * What makes the recorded examples (contracts/examples) trustworthy: each one validates against its schema in the
 * document, each operation has its request, success and error examples (minus the written exemptions), and no
 * example or exemption names an operation or an answer the document no longer has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { attachApiExamples, type ApiDocument, type ApiExamples } from '@binzip/shared';
import { schemaCompiler } from './contract';
import { EXAMPLES_DIR } from './api-examples';

/** Answers no end-to-end test can get for real, so they have no example (contracts/examples/exemptions.yaml). */
export interface Exemption {
  /** `request`, or `<status> <code>` such as `500 C0000`. */
  answers: string[];
  /** The operations it covers; every operation when absent. */
  operations?: string[];
  reason: string;
}

export const EXEMPTIONS_FILE = path.join(EXAMPLES_DIR, 'exemptions.yaml');

export function readExemptions(file = EXEMPTIONS_FILE): Exemption[] {
  return parse(readFileSync(file, 'utf8')) as Exemption[];
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Operation {
  id: string;
  op: Json;
}

function operationsOf(document: ApiDocument): Operation[] {
  return Object.values((document.paths ?? {}) as Record<string, Json>).flatMap((item) =>
    METHODS.filter((method) => item[method]).map((method) => ({ id: String((item[method] as Json).operationId), op: item[method] as Json })),
  );
}

const jsonMedia = (holder: unknown): Json | undefined => ((holder as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];

/** `<status> <code>` of every answer an operation lists, success included. */
function listedAnswers(op: Json): string[] {
  return Object.entries((op.responses ?? {}) as Record<string, Json>).flatMap(([status, response]) => {
    const codes = (((jsonMedia(response)?.schema as Json | undefined)?.properties as Record<string, Json> | undefined)?.code?.enum ?? []) as string[];
    return codes.map((code) => `${status} ${code}`);
  });
}

/** What an operation's request example must show: its JSON body, every path parameter, and a query when it takes one. */
function requestGaps(op: Json, request: ApiExamples[string]['request']): string[] {
  const gaps: string[] = [];
  if (jsonMedia(op.requestBody) && request?.body === undefined) gaps.push('its JSON body');
  if ((op.requestBody as Json | undefined) && !jsonMedia(op.requestBody)) gaps.push('its form');
  const parameters = (op.parameters ?? []) as Json[];
  for (const parameter of parameters.filter((p) => p.in === 'path')) {
    if (request?.params?.[String(parameter.name)] === undefined) gaps.push(`path parameter ${String(parameter.name)}`);
  }
  if (parameters.some((p) => p.in === 'query') && Object.keys(request?.query ?? {}).length === 0) gaps.push('a query');
  return gaps;
}

/** Every problem with `examples` for `document` (the document without examples); none means they are in step. */
export function exampleProblems(document: ApiDocument, examples: ApiExamples, exemptions: Exemption[]): string[] {
  const problems: string[] = [];
  const operations = operationsOf(document);
  const byId = new Map(operations.map((operation) => [operation.id, operation.op]));
  const exempt = (id: string, answer: string) =>
    exemptions.some((e) => e.answers.includes(answer) && (e.operations === undefined || e.operations.includes(id)));

  for (const exemption of exemptions) {
    if (!exemption.reason?.trim()) problems.push(`exemption of ${exemption.answers.join(', ')} gives no reason`);
    for (const id of exemption.operations ?? []) if (!byId.has(id)) problems.push(`exemption names ${id}, which the document no longer has`);
  }

  for (const [id, recorded] of Object.entries(examples)) {
    const op = byId.get(id);
    if (!op) {
      problems.push(`examples of ${id}, which the document no longer has`);
      continue;
    }
    const listed = listedAnswers(op);
    for (const [status, byCode] of Object.entries(recorded.responses)) {
      for (const code of Object.keys(byCode))
        if (!listed.includes(`${status} ${code}`)) problems.push(`${id}: an example of ${status} ${code}, which it does not list`);
    }
  }

  for (const { id, op } of operations) {
    const recorded = examples[id];
    for (const answer of listedAnswers(op)) {
      const [status, code] = answer.split(' ');
      const has = recorded?.responses[status]?.[code] !== undefined;
      if (!has && !exempt(id, answer)) problems.push(`${id}: no example of ${answer}`);
      if (has && exempt(id, answer)) problems.push(`${id}: ${answer} is exempted but has an example (remove the exemption)`);
    }
    const gaps = requestGaps(op, recorded?.request);
    if (gaps.length > 0 && !exempt(id, 'request')) problems.push(`${id}: the request example lacks ${gaps.join(', ')}`);
    if (gaps.length === 0 && exempt(id, 'request') && (op.requestBody || (op.parameters as unknown[] | undefined)?.length)) {
      problems.push(`${id}: request is exempted but has a full example (remove the exemption)`);
    }
  }

  problems.push(...invalidExamples(attachApiExamples(document, examples)));
  return problems;
}

/** Every example in `document` that its own schema rejects. */
export function invalidExamples(document: ApiDocument): string[] {
  const compile = schemaCompiler(document);
  const problems: string[] = [];
  const check = (where: string, schema: unknown, value: unknown) => {
    if (schema === undefined) return problems.push(`${where}: an example without a schema`);
    const validate = compile(schema);
    if (!validate(value)) problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  };
  for (const { id, op } of operationsOf(document)) {
    for (const parameter of (op.parameters ?? []) as Json[]) {
      if (parameter.example !== undefined) check(`${id} parameter ${String(parameter.name)}`, parameter.schema, parameter.example);
    }
    const body = jsonMedia(op.requestBody);
    if (body?.example !== undefined) check(`${id} request body`, body.schema, body.example);
    for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      const media = jsonMedia(response);
      if (media?.example !== undefined) check(`${id} ${status}`, media.schema, media.example);
      for (const [name, example] of Object.entries((media?.examples ?? {}) as Record<string, Json>)) {
        check(`${id} ${status} ${name}`, media?.schema, example.value);
      }
    }
  }
  return problems;
}
