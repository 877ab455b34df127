import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ALERT_TESTS_FILE,
  ALERTS_FILE,
  alertRules,
  expectPromtoolPasses,
  headingAnchor,
  PROMETHEUS_CONFIG,
  promtool,
  readYaml,
  ROOT,
} from './ops-files';

interface RuleTestFile {
  rule_files: string[];
  tests: { name?: string; alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: unknown[] }[] }[];
}

describe('ops/prometheus: alert rules under promtool', () => {
  it('alerts.yml and prometheus.yml are valid for promtool', () => {
    expect(expectPromtoolPasses(['check', 'rules', ALERTS_FILE])).toMatch(/SUCCESS: 10 rules found/);
    expectPromtoolPasses(['check', 'config', PROMETHEUS_CONFIG]);
  });

  it('every rule unit test passes: each alert fires on its series and stays silent on the others', () => {
    expect(expectPromtoolPasses(['test', 'rules', ALERT_TESTS_FILE])).toMatch(/SUCCESS/);
  });

  it('promtool fails a rule test whose expectation is wrong (the unit tests really run)', () => {
    const { status, output } = promtool(['test', 'rules', path.join(__dirname, 'fixtures/wrong-expectation.test.yml')]);
    expect(status).not.toBe(0);
    expect(output).toMatch(/DeadLetterQueueNotEmpty/);
  });

  it('the unit tests give every alert a case that fires it and one that leaves it silent', () => {
    const tests = readYaml(ALERT_TESTS_FILE) as RuleTestFile;
    expect(tests.rule_files).toEqual(['alerts.yml']);
    const cases = tests.tests.flatMap((group) => group.alert_rule_test ?? []);
    const coverage = alertRules().map(({ alert }) => {
      const own = cases.filter((entry) => entry.alertname === alert);
      return {
        alert,
        fires: own.some((entry) => (entry.exp_alerts ?? []).length > 0),
        silent: own.some((entry) => (entry.exp_alerts ?? []).length === 0),
      };
    });
    expect(coverage).toEqual(coverage.map(({ alert }) => ({ alert, fires: true, silent: true })));
    const unknown = cases.map((entry) => entry.alertname).filter((name) => !coverage.some(({ alert }) => alert === name));
    expect(unknown).toEqual([]);
  });

  it('the alerts of the operations runbook, each with a duration, a severity, a summary, a description and a runbook section', () => {
    const rules = alertRules();
    expect(rules.map((rule) => rule.alert).sort()).toEqual(
      [
        'DeadLetterQueueNotEmpty',
        'HighErrorRate',
        'HighLatencyP99',
        'HighPendingAnswerRate',
        'JournalSealingStalled',
        'LedgerConsumerMissing',
        'OutboxStuck',
        'ReconciliationMismatch',
        'ReconciliationStale',
        'RetentionBehind',
      ].sort(),
    );
    const runbookAnchors = new Map<string, Set<string>>();
    const anchorsOf = (file: string): Set<string> => {
      if (!runbookAnchors.has(file)) {
        const headings = readFileSync(path.join(ROOT, file), 'utf8').match(/^#{1,6} .+$/gm) ?? [];
        runbookAnchors.set(file, new Set(headings.map((heading) => headingAnchor(heading.replace(/^#+ /, '')))));
      }
      return runbookAnchors.get(file) as Set<string>;
    };
    for (const rule of rules) {
      expect({ alert: rule.alert, for: rule.for }).toEqual({ alert: rule.alert, for: expect.stringMatching(/^\d+[smh]$/) });
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({
        alert: rule.alert,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      const [file, anchor] = (rule.annotations?.runbook_url ?? '').split('#') as [string, string | undefined];
      expect({
        alert: rule.alert,
        runbook: existsSync(path.join(ROOT, file)) && anchor !== undefined && anchorsOf(file).has(anchor),
      }).toEqual({ alert: rule.alert, runbook: true });
      expect(anchor).toBe(rule.alert.toLowerCase());
    }
  });
});
