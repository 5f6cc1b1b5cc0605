/**
 * The compatibility gates for deploying services one at a time: the current API document and event schemas
 * against the last release kept in `contracts/released/` (written by `npm run api:release`). Each function
 * answers the breaking changes in words, empty when there are none. docs/versioning.md says what counts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { z } from 'zod';
import { type ApiDocument } from '@binzip/shared';
import { EVENT_CONTRACTS } from '@binzip/events';
import { buildApiDocument } from './openapi';

export const RELEASE_DIR = path.resolve(__dirname, '..', '..', 'contracts', 'released');

type Json = Record<string, unknown>;

/** `<name>.v<version>.json` -> JSON Schema of every event contract, generated from its zod schema. */
export function currentEventSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (const contract of EVENT_CONTRACTS) {
    // `input`: what a consumer accepts when it parses the event (unknown fields are ignored, not refused).
    schemas[`${contract.name}.v${contract.v}.json`] = {
      title: `${contract.subject} v${contract.v}`,
      ...(z.toJSONSchema(contract.schema, { io: 'input' }) as Json),
    };
  }
  return schemas;
}

export interface Release {
  document: ApiDocument;
  events: Record<string, Json>;
}

export function readRelease(dir = RELEASE_DIR): Release {
  const eventsDir = path.join(dir, 'events');
  const events: Record<string, Json> = {};
  if (existsSync(eventsDir)) {
    for (const file of readdirSync(eventsDir).filter((name) => name.endsWith('.json'))) {
      events[file] = JSON.parse(readFileSync(path.join(eventsDir, file), 'utf8')) as Json;
    }
  }
  return { document: JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8')) as ApiDocument, events };
}

export function writeRelease(release: Release = { document: buildApiDocument(), events: currentEventSchemas() }, dir = RELEASE_DIR): void {
  rmSync(path.join(dir, 'events'), { recursive: true, force: true });
  mkdirSync(path.join(dir, 'events'), { recursive: true });
  writeFileSync(path.join(dir, 'openapi.json'), `${JSON.stringify(release.document, null, 2)}\n`);
  for (const [file, schema] of Object.entries(release.events)) {
    writeFileSync(path.join(dir, 'events', file), `${JSON.stringify(schema, null, 2)}\n`);
  }
}

/**
 * Breaking API changes, classified by api-smart-diff (a maintained OpenAPI/JSON Schema diff), with two
 * project rules on top: request bodies refuse unknown fields, so removing a request field breaks the clients
 * that send it; and error answers may gain codes and statuses (clients treat an unknown error code as a
 * failure with its message, docs/versioning.md), so changes under an error status are not breaking.
 */
export function apiBreakingChanges(before: ApiDocument, after: ApiDocument): string[] {
  const { diffs } = apiCompare(structuredClone(before), structuredClone(after));
  const found = new Set<string>();
  for (const diff of diffs) {
    const at = diff.path.map(String);
    // Component diffs repeat what the operations that use them show, with less context.
    if (at[0] !== 'paths') continue;
    const responseAt = at.indexOf('responses');
    if (responseAt >= 0 && Number(at[responseAt + 1]) >= 400) continue;
    const requestFieldRemoved = diff.action === 'remove' && at.includes('requestBody') && at[at.length - 2] === 'properties';
    if (diff.type !== 'breaking' && !requestFieldRemoved) continue;
    const [, route, method] = at;
    found.add(`${method?.toUpperCase()} ${route}: ${diff.description ?? diff.action} (at ${at.slice(3).join('.') || 'the operation'})`);
  }
  return [...found];
}

/**
 * Every change between two API documents, one line per operation and place, with api-smart-diff's class
 * (breaking, non-breaking, annotation, unclassified): what a refactoring that should leave the API alone changed.
 */
export function apiChanges(before: ApiDocument, after: ApiDocument): string[] {
  const { diffs } = apiCompare(structuredClone(before), structuredClone(after));
  const found = new Set<string>();
  for (const diff of diffs) {
    const at = diff.path.map(String);
    if (at[0] !== 'paths') continue;
    const [, route, method] = at;
    // api-smart-diff leaves parameter examples unclassified; an example is documentation like any other.
    const kind = at.some((segment) => segment === 'example' || segment === 'examples') ? 'annotation' : diff.type;
    found.add(`${kind}: ${method?.toUpperCase() ?? ''} ${route}: ${diff.action} at ${at.slice(3).join('.') || 'the operation'}`);
  }
  return [...found].sort();
}

const ANNOTATIONS = new Set(['title', 'description', '$schema', 'examples', 'example', '$comment']);

/**
 * Breaking event changes. Producers and consumers deploy in either order and consumers parse every event
 * with the contract they were built with, so under one version only a new optional field (and wording) may
 * change: a removed field, a field made optional or required, a new required field, or any change to a
 * field's type, values or bounds breaks one side or the other.
 */
export function eventBreakingChanges(before: Record<string, Json>, after: Record<string, Json>): string[] {
  const problems: string[] = [];
  for (const [file, old] of Object.entries(before)) {
    const current = after[file];
    if (!current) {
      problems.push(`${file}: the event contract is gone (a consumer may still read it; keep it until its consumers moved)`);
      continue;
    }
    compareSchemas(file, '', old, current, problems);
  }
  return problems;
}

function compareSchemas(file: string, at: string, old: Json, current: Json, problems: string[]): void {
  const where = at || '(the event)';
  const oldProps = (old.properties ?? {}) as Record<string, Json>;
  const newProps = (current.properties ?? {}) as Record<string, Json>;
  const oldRequired = new Set((old.required ?? []) as string[]);
  const newRequired = new Set((current.required ?? []) as string[]);
  for (const [name, schema] of Object.entries(oldProps)) {
    const field = at ? `${at}.${name}` : name;
    if (!newProps[name]) problems.push(`${file}: field \`${field}\` removed`);
    else {
      if (oldRequired.has(name) && !newRequired.has(name)) problems.push(`${file}: field \`${field}\` is no longer required`);
      if (!oldRequired.has(name) && newRequired.has(name)) problems.push(`${file}: field \`${field}\` became required`);
      compareSchemas(file, field, schema, newProps[name], problems);
    }
  }
  for (const name of Object.keys(newProps)) {
    if (!oldProps[name] && newRequired.has(name)) problems.push(`${file}: new required field \`${at ? `${at}.${name}` : name}\``);
  }
  const keys = new Set([...Object.keys(old), ...Object.keys(current)]);
  for (const key of keys) {
    if (key === 'properties' || key === 'required' || ANNOTATIONS.has(key)) continue;
    if (JSON.stringify(old[key]) !== JSON.stringify(current[key])) {
      problems.push(`${file}: \`${where}\` ${key} changed from ${JSON.stringify(old[key]) ?? 'none'} to ${JSON.stringify(current[key]) ?? 'none'}`);
    }
  }
}

/** Both gates against the release in `dir`: every breaking change, API first. */
export function breakingChangesSinceRelease(dir = RELEASE_DIR): { api: string[]; events: string[] } {
  const release = readRelease(dir);
  return {
    api: apiBreakingChanges(release.document, buildApiDocument()),
    events: eventBreakingChanges(release.events, currentEventSchemas()),
  };
}
