const path = require('node:path');

/** How many of the slowest test files the summary names. */
const SLOWEST = 10;

/**
 * Names the slowest test files (where a shorter run has the most to gain, and what the sequencer
 * should start first), then prints the closing line CI reads: `N passed, N failed` (with skipped
 * when any). That line stays the last one printed.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const timed = results.testResults
      .filter((file) => file.perfStats && file.perfStats.end > file.perfStats.start)
      .map((file) => ({
        file: path.relative(this.rootDir, file.testFilePath),
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST);
    if (timed.length > 1) {
      process.stdout.write(`\nSlowest test files:\n`);
      for (const { file, seconds } of timed) process.stdout.write(`${seconds.toFixed(1).padStart(8)} s  ${file}\n`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
module.exports = SummaryReporter;
