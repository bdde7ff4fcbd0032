/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after Jest's own summary,
 * for tools that read a run's last lines and do not parse Jest's format.
 *
 * And a run that cannot end is a failed run, not a hang: when something a test opened still holds
 * the process (a connection, a server, a timer) `EXIT_GRACE_MS` after the run, it is named and the
 * process exits with status 1.
 */
const EXIT_GRACE_MS = 15000;

export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
    // unref(): the timer itself never keeps the process alive; it fires only if something else does.
    setTimeout(() => {
      const held = process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout');
      process.stderr.write(
        `\nThe test process did not exit ${EXIT_GRACE_MS / 1000} s after the run: a test left open ${held.join(', ') || 'a handle'}. ` +
          'Failing the run (find it with --detectOpenHandles).\n',
      );
      process.exit(1);
    }, EXIT_GRACE_MS).unref();
  }
}
