import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ACCOUNT_DECLARATIONS, isKeyedAccount, SCOPES } from '@wallet/contracts';

/**
 * Account names are spelled in the chart of accounts only, so an account's name and rules
 * change in one place. Every string literal of the sources (tests and migrations are history
 * and fixtures, and are left alone) is read for one that spells a name or the start of one.
 */

const ROOT = path.resolve(__dirname, '..');
const CHART = 'packages/contracts/src/chart-of-accounts.ts';

/** Literals that spell an account name but mean something else, and how often each file may hold them. */
const OTHER_MEANINGS: ReadonlyArray<{ file: string; literal: string; count: number; meaning: string }> = [
  {
    file: 'services/treasury/src/features/analytics/analytics-projection.ts',
    literal: 'suspense',
    count: 2,
    meaning: 'the analytics class of that name',
  },
  {
    file: 'services/treasury/src/features/analytics/analytics-service.ts',
    literal: 'suspense',
    count: 1,
    meaning: 'the liquidity figure of that name',
  },
  {
    file: 'services/treasury/src/features/balances/balances-service.ts',
    literal: 'suspense',
    count: 1,
    meaning: 'the balance column of that name',
  },
];
/** API scopes such as `wallet:deposit` share the wallet accounts' stem. */
const SCOPE_NAMES: ReadonlySet<string> = new Set(SCOPES);

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A keyed name is caught by the stem before its first colon (`asset:` also catches `asset:${rail}-clearing:`);
// a single name only whole. Either may stand at the start of the literal or after a quote inside it (SQL, JSON).
const STEMS = [
  ...new Set(
    ACCOUNT_DECLARATIONS.filter(isKeyedAccount).map((declaration) => declaration.prefix.slice(0, declaration.prefix.indexOf(':') + 1)),
  ),
];
const SINGLES = ACCOUNT_DECLARATIONS.flatMap((declaration) => (isKeyedAccount(declaration) ? [] : [declaration.name]));
const STEM = new RegExp(`(?:^|['"])(?:${STEMS.map(escaped).join('|')})`);
const SINGLE = new RegExp(`(?:^|['"])(?:${SINGLES.map(escaped).join('|')})(?:['"]|$)`);

interface Finding {
  file: string;
  line: number;
  literal: string;
}

/** The string literals of `source` (template pieces each) that spell an account name; comments are not read. */
function accountNameLiterals(file: string, source: string): Finding[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const findings: Finding[] = [];
  const visit = (node: ts.Node): void => {
    const pieces: string[] = [];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) pieces.push(node.text);
    else if (ts.isTemplateExpression(node)) pieces.push(node.head.text, ...node.templateSpans.map((span) => span.literal.text));
    for (const literal of pieces) {
      if (SCOPE_NAMES.has(literal) || !(STEM.test(literal) || SINGLE.test(literal))) continue;
      findings.push({ file, line: sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1, literal });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return findings;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'migrations' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function scannedFiles(): string[] {
  const roots = [
    ...readdirSync(path.join(ROOT, 'packages')).map((name) => path.join(ROOT, 'packages', name, 'src')),
    ...readdirSync(path.join(ROOT, 'services')).map((name) => path.join(ROOT, 'services', name, 'src')),
    path.join(ROOT, 'scripts'),
  ];
  return roots.flatMap(sourceFiles).map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
}

/** Findings beyond what OTHER_MEANINGS allows a file, and the allowances no file uses up any more. */
function unexplained(findings: Finding[]): { stray: Finding[]; unusedAllowances: string[] } {
  const left = new Map(OTHER_MEANINGS.map((allowance) => [`${allowance.file}|${allowance.literal}`, allowance.count]));
  const stray = findings.filter((finding) => {
    const key = `${finding.file}|${finding.literal}`;
    const allowed = left.get(key) ?? 0;
    if (allowed === 0) return true;
    left.set(key, allowed - 1);
    return false;
  });
  return { stray, unusedAllowances: [...left].filter(([, count]) => count > 0).map(([key, count]) => `${key} (${count} unused)`) };
}

describe('account names outside the chart of accounts', () => {
  it('are spelled in no source file but the chart', () => {
    const files = scannedFiles();
    expect(files).toContain(CHART);
    const findings = files
      .filter((file) => file !== CHART)
      .flatMap((file) => accountNameLiterals(file, readFileSync(path.join(ROOT, file), 'utf8')));
    const { stray, unusedAllowances } = unexplained(findings);
    expect(stray.map((finding) => `${finding.file}:${finding.line} ${JSON.stringify(finding.literal)}`)).toEqual([]);
    expect(unusedAllowances).toEqual([]);
  });

  it('are caught as whole names, name prefixes, inside SQL and JSON, but not in comments or as scopes', () => {
    const source = [
      "const a = 'suspense';",
      'const b = `wallet:${ownerId}`;',
      'const c = `asset:${rail}-clearing:${currencyCode}`;',
      'const d = "momo-float:mtn";',
      "const e = `SELECT 1 FROM accounts WHERE name = 'revenue:fees'`;",
      'const f = \'{"accountName":"payout-clearing"}\';',
      "// 'platform-commission' in a comment is prose",
      "const g = 'wallet:deposit';",
      "const h = 'suspended';",
    ].join('\n');
    expect(accountNameLiterals('sample.ts', source).map((finding) => [finding.line, finding.literal])).toEqual([
      [1, 'suspense'],
      [2, 'wallet:'],
      [3, 'asset:'],
      [4, 'momo-float:mtn'],
      [5, "SELECT 1 FROM accounts WHERE name = 'revenue:fees'"],
      [6, '{"accountName":"payout-clearing"}'],
    ]);
  });

  it('counts a literal beyond what a file may hold for another meaning', () => {
    const [allowance] = OTHER_MEANINGS;
    if (!allowance) throw new Error('no allowance to try');
    const finding = { file: allowance.file, line: 1, literal: allowance.literal };
    expect(unexplained(Array.from({ length: allowance.count + 1 }, () => finding)).stray).toHaveLength(1);
  });
});
