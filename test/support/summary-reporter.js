/**
 * Prints one plain closing line, `tests: N passed, N failed`, after jest's own summary, so any CI log
 * reader can tell how many tests ran without knowing jest's format.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`${line}\n`);
  }
}

module.exports = SummaryReporter;
