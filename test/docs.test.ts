import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headingAnchor } from './ops/ops-files';

/**
 * The documentation lives in the repository and stays true to it: nothing cites a document kept
 * elsewhere, every link resolves (anchors included), every docs/ path a comment cites exists, and
 * the README stays a front page.
 */

const ROOT = path.resolve(__dirname, '..');
const README_LINES_MAX = 250;

/** Names of documents kept outside the repository, spelled in pieces so this file does not name them. */
const OUTSIDE_DOCUMENTS = [
  ['api', 'decisions'].join('-'),
  ['service', 'spec'].join('-'),
  ['shared', 'spec'].join('/'),
  ['shared', 'design'].join('/'),
];

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Files in the repository (tracked, or new and not ignored), without dependencies and lockfiles. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))]
    .filter(
      (file) =>
        file !== '' && !file.split('/').includes('node_modules') && !/(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml)$/.test(file),
    )
    .filter((file) => existsSync(path.join(ROOT, file)))
    .sort();
}

function textOf(file: string): string | null {
  const bytes = readFileSync(path.join(ROOT, file));
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

const isMarkdown = (file: string): boolean => file.endsWith('.md');

/** The comment text of a source line: what follows `//`, `#` or a block comment's `*`; empty when none. */
function commentOf(line: string): string {
  const trimmed = line.trim();
  if (/^(\/\/|\/\*|\*|#)/.test(trimmed)) return trimmed;
  const trailing = line.indexOf(' // ');
  return trailing >= 0 ? line.slice(trailing) : '';
}

/** What a reader takes as prose: the whole of a Markdown file, the comments of any other file. */
function proseLines(file: string, text: string): Array<{ line: number; text: string }> {
  return text.split('\n').map((line, index) => ({ line: index + 1, text: isMarkdown(file) ? line : commentOf(line) }));
}

/** Relative paths (`../x`) in `text` that resolve outside the repository from `file`'s folder. */
function pathsLeavingRepository(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[\s(`'"[<=])((?:\.\.\/)+[\w.\-/]*)/g)) {
    const target = match[1] as string;
    const resolved = path.resolve(ROOT, path.dirname(file), target);
    if (path.relative(ROOT, resolved).startsWith('..')) found.push(target);
  }
  return found;
}

/** Markdown without fenced code blocks and inline code, where a bracket is not a link. */
function withoutCode(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
}

/** GitHub's anchors of a Markdown file's headings, a repeated heading getting `-1`, `-2`, ... */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of withoutFences(markdown).match(/^#{1,6} .+$/gm) ?? []) {
    const text = heading.replace(/^#+ /, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = headingAnchor(text);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Every relative link of a Markdown file that does not lead to an existing file (and heading) of the repository. */
function brokenLinks(file: string, markdown: string): Finding[] {
  const broken: Finding[] = [];
  const lines = withoutCode(markdown).split('\n');
  lines.forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const link = match[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const resolved = target === '' ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), decodeURI(target));
      const inside = !path.relative(ROOT, resolved).startsWith('..');
      const exists = inside && existsSync(resolved);
      const anchorFound = !anchor || !exists || !resolved.endsWith('.md') || anchorsOf(readFileSync(resolved, 'utf8')).has(anchor);
      if (!exists || !anchorFound) broken.push({ file, line: index + 1, text: link });
    }
  });
  return broken;
}

const files = repositoryFiles();
const texts = new Map(
  files.flatMap((file) => {
    const text = textOf(file);
    return text === null ? [] : [[file, text] as const];
  }),
);

describe('the documentation', () => {
  it('lists the repository (a sanity check of the file listing the other checks read)', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'test/docs.test.ts']));
  });

  it('names no document kept outside the repository, in any file', () => {
    const found: Finding[] = [];
    for (const [file, text] of texts) {
      text.split('\n').forEach((line, index) => {
        for (const name of OUTSIDE_DOCUMENTS) if (line.toLowerCase().includes(name)) found.push({ file, line: index + 1, text: name });
      });
    }
    expect(found).toEqual([]);
  });

  it('points at no path outside the repository, in any document or comment', () => {
    const found: Finding[] = [];
    for (const [file, text] of texts) {
      for (const { line, text: prose } of proseLines(file, text)) {
        for (const target of pathsLeavingRepository(file, prose)) found.push({ file, line, text: target });
      }
    }
    expect(found).toEqual([]);
  });

  it('cites only docs/ files that exist', () => {
    const found: Finding[] = [];
    for (const [file, text] of texts) {
      text.split('\n').forEach((line, index) => {
        for (const match of line.matchAll(/(?<![\w./-])(docs\/[\w./-]*\.md)/g)) {
          if (!existsSync(path.join(ROOT, match[1] as string))) found.push({ file, line: index + 1, text: match[1] as string });
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('links, in every Markdown file, only to files and headings that exist in the repository', () => {
    const markdown = [...texts].filter(([file]) => isMarkdown(file));
    expect(markdown.map(([file]) => file)).toEqual(expect.arrayContaining(['README.md', 'docs/decisions/README.md']));
    expect(markdown.flatMap(([file, text]) => brokenLinks(file, text))).toEqual([]);
  });

  it('indexes every decision record', () => {
    const index = texts.get('docs/decisions/README.md') ?? '';
    const records = files.filter((file) => /^docs\/decisions\/[^/]+\.md$/.test(file) && file !== 'docs/decisions/README.md');
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((record) => !index.includes(`](${path.basename(record)})`))).toEqual([]);
  });

  it(`keeps the README to at most ${README_LINES_MAX} lines, with its commands and its links to docs/`, () => {
    const readme = texts.get('README.md') ?? '';
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_LINES_MAX);
    for (const command of ['npm start', 'npm test', 'npm run demo']) expect(readme).toContain(command);
    expect(readme).toContain('](docs/architecture.md)');
    expect(readme).toContain('](docs/decisions/README.md)');
  });
});
