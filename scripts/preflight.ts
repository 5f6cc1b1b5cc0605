/**
 * `npm start`'s first step, before the build: a taken port or a missing tool is one line and exit 1
 * (scripts/lib/preflight.ts says what is checked).
 */
import { preflight } from './lib/preflight';

preflight()
  .then(({ problems }) => {
    for (const problem of problems) console.error(`[start] ${problem}`);
    if (problems.length > 0) process.exit(1);
  })
  .catch((err: unknown) => {
    console.error(`[start] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
