/**
 * axe-core in the console's pages (issue 40 step 5: "axe: 0 violations"). The script is read from the pinned
 * devDependency and evaluated through the DevTools protocol rather than added as a <script> tag: the console's
 * Content-Security-Policy allows only its own scripts ('self'), so an injected inline tag would be refused and
 * reported as a policy violation by the test that watches for those.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

let source: string | undefined;

/** What the failure message shows of one violation: enough to find the element and the rule's advice. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** axe's own tag sets for WCAG 2.0/2.1/2.2 A and AA plus its best practices (landmarks, headings, regions). */
const RUN_ONLY = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Runs axe on the page as it is now and gives its violations (none when the page is accessible). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  source ??= readFileSync(require.resolve('axe-core'), 'utf8');
  // Once per document: a screen change in the console keeps the document, a reload or `goto` does not.
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(`${source}\n;true`);
  // A string, evaluated in the page: this file is type-checked without the DOM library.
  return page.evaluate<AxeViolation[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(RUN_ONLY)} }, resultTypes: ['violations'] })` +
      `.then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,` +
      ` nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`,
  );
}

/** Fails with each violation's rule id, help text and the elements it found, so the message alone says what to fix. */
export async function expectNoAxeViolations(page: Page, screenName: string): Promise<void> {
  const violations = await axeViolations(page);
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) =>
      `- ${v.id} (${v.impact ?? 'n/a'}): ${v.help} <${v.helpUrl}>\n` +
      v.nodes.map((n) => `    ${JSON.stringify(n.target)}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`).join('\n'),
  );
  throw new Error(`axe found ${violations.length} violation(s) on the console's ${screenName} screen:\n${lines.join('\n')}`);
}
