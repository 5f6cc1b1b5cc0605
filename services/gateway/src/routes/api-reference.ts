/**
 * `/docs`: the API reference as one HTML page rendered here from the merged document, with no script. Swagger UI
 * (`/docs/try`) needs 10–30 s of a browser's time on this machine for the document (its OpenAPI 3.1 resolver
 * normalizes the whole definition on load, docs/benchmarks.md); a page of plain HTML is usable as soon as it
 * arrives. Each operation is a `<details>` element (closed: the method, path and summary; open: the description,
 * the parameters and body fields, the recorded request and success examples, and every answer status with its
 * codes); the tags are an index at the top. Calling the API from the browser stays Swagger UI's job.
 */
import type { ApiDocument } from '@binzip/shared/core';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The document's descriptions are CommonMark; inline code is the only markup that carries meaning here. */
const prose = (text: unknown): string =>
  typeof text === 'string' && text.trim() !== ''
    ? text
        .trim()
        .split(/\n{2,}/)
        .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
        .join('')
    : '';

const anchor = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '-');

function schemaOf(schema: Json | undefined, components: Json): Json | undefined {
  if (schema && typeof schema.$ref === 'string') return components[schema.$ref.split('/').pop()!] as Json | undefined;
  return schema;
}

/** A schema's type as a reader wants it: `string`, `integer[]`, `RENT | SALE`, `object`. */
function typeOf(schema: Json | undefined, components: Json): string {
  const resolved = schemaOf(schema, components);
  if (!resolved) return '';
  if (Array.isArray(resolved.enum)) return resolved.enum.map((value) => JSON.stringify(value)).join(' | ');
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = resolved[key] as Json[] | undefined;
    if (options?.length)
      return options
        .map((option) => typeOf(option, components))
        .filter(Boolean)
        .join(' | ');
  }
  const type = [resolved.type].flat().filter((t) => t !== undefined && t !== 'null') as string[];
  if (type[0] === 'array') return `${typeOf(resolved.items as Json | undefined, components)}[]`;
  return `${type.join(' | ') || 'object'}${[resolved.type].flat().includes('null') ? ' | null' : ''}`;
}

function fieldRows(rows: Array<{ name: string; where?: string; required: boolean; type: string; about: string }>): string {
  if (rows.length === 0) return '';
  return `<table><thead><tr><th>이름</th><th>형식</th><th>필수</th><th>설명</th></tr></thead><tbody>${rows
    .map(
      (row) =>
        `<tr><td><code>${escapeHtml(row.name)}</code>${row.where ? ` <small>${row.where}</small>` : ''}</td><td><code>${escapeHtml(row.type)}</code></td><td>${
          row.required ? '예' : ''
        }</td><td>${escapeHtml(row.about)}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

const example = (title: string, value: unknown) => (value === undefined ? '' : `<h4>${title}</h4><pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`);

function operationHtml(method: string, template: string, op: Json, components: Json): string {
  const id = String(op.operationId);
  const parameters = ((op.parameters ?? []) as Json[]).map((p) => ({
    name: String(p.name),
    where: String(p.in),
    required: p.required === true,
    type: typeOf(p.schema as Json | undefined, components),
    about: [p.description, (p.schema as Json | undefined)?.title].find((text): text is string => typeof text === 'string'),
  }));
  const json = (((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>)['application/json'];
  const body = schemaOf(json?.schema as Json | undefined, components);
  const required = new Set((body?.required ?? []) as string[]);
  const fields = Object.entries((body?.properties ?? {}) as Record<string, Json>).map(([name, field]) => ({
    name,
    required: required.has(name),
    type: typeOf(field, components),
    about: [field.description, field.title, schemaOf(field, components)?.title].find((text): text is string => typeof text === 'string'),
  }));
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
  const success = ((responses.find(([status]) => status === '200')?.[1].content ?? {}) as Record<string, Json>)['application/json']?.example;
  const security = ((op.security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement));
  return `<details class="opblock" id="${anchor(id)}"><summary class="opblock-summary"><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(
    template,
  )}</code> ${escapeHtml(typeof op.summary === 'string' ? op.summary : id)} <small>${escapeHtml(id)}${
    security.includes('bearerAuth') ? ' · 토큰' : ''
  }</small></summary><div class="body">${prose(op.description)}${
    parameters.length ? `<h4>매개변수</h4>${fieldRows(parameters.map((p) => ({ ...p, about: p.about ?? '' })))}` : ''
  }${fields.length ? `<h4>본문 (application/json)</h4>${fieldRows(fields.map((f) => ({ ...f, about: f.about ?? '' })))}` : ''}${
    json?.example !== undefined ? example('요청 예', json.example) : ''
  }${example('성공 응답 예', success)}<div class="responses-wrapper"><h4>응답</h4><table><tbody>${responses
    .map(
      ([status, response]) =>
        `<tr><td><b>${escapeHtml(status)}</b></td><td>${escapeHtml(typeof response.description === 'string' ? response.description : '')}</td></tr>`,
    )
    .join('')}</tbody></table></div></div></details>`;
}

/** The whole page for `document` (a few hundred KB, a tenth of that compressed); `missing`: services left out. */
export function apiReferencePage(document: ApiDocument, missing: readonly string[] = []): string {
  const components = ((document.components ?? {}) as Json).schemas as Json;
  const byTag = new Map<string, string[]>();
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = ((op.tags ?? ['other']) as string[])[0];
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, template, op, components)]);
    }
  }
  const info = document.info;
  return `<!DOCTYPE html>
<html lang="ko">
<head>
<meta charset="UTF-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${escapeHtml(info.title)} ${escapeHtml(info.version)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 48px;color:#1b1f24}
header{border-bottom:1px solid #d0d7de;margin-bottom:16px}nav a{margin-right:12px;white-space:nowrap}
code,pre{font:13px ui-monospace,monospace}pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:24em}
details.opblock{border:1px solid #d0d7de;border-radius:6px;margin:6px 0}summary{cursor:pointer;padding:6px 8px}
details.opblock[open] summary{border-bottom:1px solid #d0d7de}.body{padding:0 12px 8px}small{color:#57606a}
.method{display:inline-block;min-width:4.2em;text-align:center;border-radius:4px;color:#fff;font-weight:600;font-size:12px;padding:2px 0}
.missing{background:#fff8c5;padding:6px 8px}.get{background:#0969da}.post{background:#1a7f37}.put{background:#9a6700}.patch{background:#8250df}.delete{background:#cf222e}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
</style>
</head>
<body>
<header><h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>문서: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1) · 직접 호출해 보기: <a href="/docs/try">/docs/try</a> (Swagger UI, 느림)</p>
${missing.length > 0 ? `<p class="missing">지금 문서를 주지 않는 서비스 (이 페이지에서 빠짐): ${escapeHtml(missing.join(', '))}</p>` : ''}
${prose(info.description)}
<nav>${[...byTag.keys()].map((tag) => `<a href="#tag-${anchor(tag)}">${escapeHtml(tag)}</a>`).join(' ')}</nav></header>
<main>${[...byTag]
    .map(([tag, operations]) => `<section id="tag-${anchor(tag)}"><h2>${escapeHtml(tag)}</h2>${operations.join('\n')}</section>`)
    .join('\n')}</main>
</body>
</html>
`;
}
