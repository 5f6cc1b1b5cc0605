import { convert, type HtmlToTextOptions } from 'html-to-text';

const ONE_LINE_LENGTH = 200;

const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

/**
 * Lists, quotes, rules and tables are plain blocks: the converter's decorations (`* ` and `1. ` bullets,
 * `> ` quotes, `----` rules) are not in the post, and table cells must not run into each other.
 */
const blocks = ['ul', 'ol', 'li', 'dl', 'dt', 'dd', 'blockquote', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'].map((selector) => ({
  selector,
  format: 'block',
}));

const options: HtmlToTextOptions = {
  wordwrap: false,
  // Deeply nested markup must not exhaust the stack of the converter (a request could otherwise crash it).
  limits: { maxDepth: 64, ellipsis: '' },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'hr', format: 'skip' },
    { selector: 'a', options: { ignoreHref: true } },
    ...headings,
    ...blocks,
  ],
};

/** The body as plain text on one line: markup stripped, whitespace folded. */
export function plainTextOf(html: string): string {
  let text: string;
  try {
    text = convert(html, options);
  } catch {
    // The converter choking on odd markup must not fail the write; a crude strip is good enough for a summary.
    text = html.replace(/<[^>]*>/g, ' ');
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** The first characters (code points, so no emoji is cut in half) of the plain text. */
export function oneLineOf(plainText: string): string {
  return Array.from(plainText).slice(0, ONE_LINE_LENGTH).join('');
}
