import type { Connection, Model } from 'mongoose';
import sanitizeHtml from 'sanitize-html';
import type { Logger } from '../core/telemetry';

/**
 * Board and house bodies are HTML that web clients render as it is. Everything a client sends passes this
 * allowlist (decisions.md "Content and the edge"): formatting, headings, lists, tables, links and images stay;
 * scripts, event handlers, `javascript:` URLs, frames, forms and styles that could cover the page go.
 */
const BODY_POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['p', 'br', 'hr', 'div', 'span', 'blockquote', 'pre', 'code'],
    ...['b', 'strong', 'i', 'em', 'u', 's', 'strike', 'del', 'ins', 'mark', 'small', 'sub', 'sup'],
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    ...['ul', 'ol', 'li', 'dl', 'dt', 'dd'],
    ...['table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'],
    ...['a', 'img', 'figure', 'figcaption'],
  ],
  allowedAttributes: {
    a: ['href', 'title', { name: 'target', multiple: false, values: ['_blank'] }, 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    col: ['span'],
    colgroup: ['span'],
    '*': ['style'],
  },
  // Only what changes how text looks: nothing that positions, sizes or layers an element over the page.
  allowedStyles: {
    '*': {
      color: [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s.,%]+\)$/i, /^[a-z]{3,20}$/i],
      'background-color': [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s.,%]+\)$/i, /^[a-z]{3,20}$/i],
      'text-align': [/^(left|right|center|justify)$/],
      'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/],
      'font-style': [/^(normal|italic)$/],
      'text-decoration': [/^(none|underline|line-through)$/],
      'font-size': [/^(\d{1,2}(\.\d+)?(px|pt|em|rem|%)|small|medium|large|x-large)$/],
    },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  // Images may also be inline pictures (`data:image/png;base64,...`); which data: types pass is checked below.
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: true,
  // The text of a removed element (an iframe's fallback, a form's labels) stays; script/style bodies do not.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'template'],
  transformTags: {
    // A link opening a new tab must not hand the opener to the linked page (reverse tabnabbing).
    a: (tagName, attribs) => {
      const { rel: _rel, ...rest } = attribs;
      return { tagName, attribs: rest.target ? { ...rest, rel: 'noopener noreferrer' } : rest };
    },
    img: (tagName, attribs) => {
      // An SVG document can carry script; only raster pictures may come inline.
      const { src, ...rest } = attribs;
      const inlineButNotRaster = src !== undefined && /^\s*data:/i.test(src) && !RASTER_DATA_URL.test(src);
      return { tagName, attribs: inlineButNotRaster ? rest : attribs };
    },
  },
  // An image left without a source shows nothing; dropping it keeps the stored body tidy.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

const RASTER_DATA_URL = /^\s*data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$/i;

/** The body as it may be stored and served: the allowlist applied. Idempotent: a clean body comes back unchanged. */
export function sanitizeBody(html: string): string {
  return sanitizeHtml(html, BODY_POLICY);
}

/**
 * Bumped whenever BODY_POLICY changes, so the start-up migration runs again over bodies stored under an older
 * policy.
 */
const BODY_POLICY_VERSION = 1;

interface MigrationMarker {
  _id: string;
  doneAt: Date;
}

function migrationsCollection(connection: Connection) {
  return connection.collection<MigrationMarker>('migrations');
}

export interface BodyMigrationOptions<T extends { _id: unknown }> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>;
  /** The field holding the HTML body. */
  field: string;
  /** Further fields computed from the clean body (e.g. a plain-text summary), set in the same write. */
  derive?: (cleanBody: string, doc: T) => Record<string, unknown>;
  logger: Logger;
  batchSize?: number;
}

/**
 * Makes bodies stored before sanitizing existed (or under an older policy) safe, once per database and policy
 * version; a `migrations` marker skips it on later starts. Each rewrite is conditional on the body being the
 * one read, so a concurrent edit (already clean) is never overwritten, and two instances starting at the same
 * time do the same harmless work. Text is kept: only markup outside the allowlist goes.
 */
export async function sanitizeStoredBodies<T extends { _id: unknown }>(options: BodyMigrationOptions<T>): Promise<{ scanned: number; rewritten: number }> {
  const { model, field, logger } = options;
  const markerId = `sanitize-bodies:${model.collection.collectionName}.${field}:v${BODY_POLICY_VERSION}`;
  const markers = migrationsCollection(model.db);
  if (await markers.findOne({ _id: markerId })) return { scanned: 0, rewritten: 0 };
  let scanned = 0;
  let rewritten = 0;
  let lastId: unknown = undefined;
  const batchSize = options.batchSize ?? 200;
  // Paged by _id rather than one long cursor: a cursor left open across a slow batch can time out on the server.
  for (;;) {
    const filter = lastId === undefined ? {} : { _id: { $gt: lastId } };
    const docs = (await model.find(filter).sort({ _id: 1 }).limit(batchSize).lean().exec()) as Array<T & Record<string, unknown>>;
    if (docs.length === 0) break;
    for (const doc of docs) {
      scanned++;
      const body = doc[field];
      if (typeof body !== 'string') continue;
      const clean = sanitizeBody(body);
      if (clean === body) continue;
      const result = await model.updateOne({ _id: doc._id, [field]: body }, { $set: { [field]: clean, ...(options.derive?.(clean, doc) ?? {}) } }).exec();
      rewritten += result.modifiedCount;
    }
    lastId = docs[docs.length - 1]._id;
  }
  await markers.updateOne({ _id: markerId }, { $set: { doneAt: new Date() } }, { upsert: true });
  logger.info('stored bodies sanitized', { collection: model.collection.collectionName, field, scanned, rewritten, policy: BODY_POLICY_VERSION });
  return { scanned, rewritten };
}
