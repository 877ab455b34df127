const { readdirSync } = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * On a clean checkout jest has no timings yet and orders files by size, so the browser, system,
 * cluster and fuzz suites, minutes each, and the folders' `suites.test.ts` or `suites-N.test.ts` (a few lines
 * that run a folder's suites, kit's describeSuites) could start last and end the run alone on one
 * worker. They go first, slowest family first (the summary reporter names the slowest files of a
 * run), the folders with the most suites first among theirs; the rest keep jest's order (its
 * timings, once it has them).
 */
const SUITES_FILE = /[\\/]suites(-\d+)?\.test\.ts$/;
const SLOW_FIRST = [/[\\/]test[\\/]dashboard[\\/]/, SUITES_FILE, /[\\/]test[\\/](e2e|cluster)[\\/]/, /[\\/]test[\\/]fuzz[\\/]/];

function rank(test) {
  const index = SLOW_FIRST.findIndex((pattern) => pattern.test(test.path));
  return index === -1 ? SLOW_FIRST.length : index;
}

function suitesIn(test) {
  return readdirSync(path.dirname(test.path)).filter((name) => name.endsWith('.suite.ts')).length;
}

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const suites = new Map(tests.filter((test) => SUITES_FILE.test(test.path)).map((test) => [test.path, suitesIn(test)]));
    return [...super.sort(tests)].sort((a, b) => rank(a) - rank(b) || (suites.get(b.path) ?? 0) - (suites.get(a.path) ?? 0));
  }
}

module.exports = SlowFirstSequencer;
