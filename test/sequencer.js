const Sequencer = require('@jest/test-sequencer').default;

/**
 * On a clean checkout jest has no timings yet and orders files by size, so the browser, system and
 * fuzz suites, minutes each, could start last and end the run alone on one worker. They go first,
 * slowest family first (the summary reporter names the slowest files of a run); the rest keep
 * jest's order (its timings, once it has them).
 */
const SLOW_FIRST = [/[\\/]test[\\/]dashboard[\\/]/, /[\\/]test[\\/]e2e[\\/]/, /[\\/]test[\\/]security[\\/]/, /[\\/]test[\\/]fuzz[\\/]/];

function rank(test) {
  const index = SLOW_FIRST.findIndex((pattern) => pattern.test(test.path));
  return index === -1 ? SLOW_FIRST.length : index;
}

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    return [...super.sort(tests)].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;
