/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after Jest's own summary,
 * for tools that read a run's last lines and do not parse Jest's format.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}
