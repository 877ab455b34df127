import { readdirSync } from 'node:fs';
import path from 'node:path';
import { deleteTestVhost } from './servers';

const SUITE = '.suite.ts';

/**
 * Runs every `*.suite.ts` of `dir` as a describe block named after its file, in the one jest file
 * that calls this. Jest loads a file's modules afresh, so the services' code ran cold in every
 * file; one file per folder loads it once and warms it up: the same tests took about a third less
 * CPU (docs/testing.md). Each suite keeps its own hooks, servers, databases and vhost, and its
 * vhosts are deleted as it ends. One suite alone: `npx jest <folder> -t '^<name> '`. A folder
 * whose suites would hold one worker too long splits them over files: `{ part: 1, of: 2 }` takes
 * the first, third, and so on.
 */
export function describeSuites(dir: string, split: { part: number; of: number } = { part: 1, of: 1 }): void {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(SUITE))
    .sort()
    .filter((_, index) => index % split.of === split.part - 1);
  for (const file of files) {
    describe(file.slice(0, -SUITE.length), () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a suite registers its hooks and tests as it loads, in this block
      require(path.join(dir, file));
      // After the suite's own afterAll hooks (jest runs a block's in the order they were added).
      afterAll(deleteThisFilesVhosts);
    });
  }
}

/** The vhosts made so far (createTestVhost records them for test/environment.js, which deletes what is left when the file ends). */
async function deleteThisFilesVhosts(): Promise<void> {
  const made = (globalThis as { __walletTestVhosts?: string[] }).__walletTestVhosts ?? [];
  for (const name of made.splice(0)) await deleteTestVhost(name);
}
