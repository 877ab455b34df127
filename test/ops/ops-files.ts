import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '../..');
export const OPS = path.join(ROOT, 'ops');
export const ALERTS_FILE = path.join(OPS, 'prometheus/alerts.yml');
export const ALERT_TESTS_FILE = path.join(OPS, 'prometheus/alerts.test.yml');
export const PROMETHEUS_CONFIG = path.join(OPS, 'prometheus/prometheus.yml');
export const DASHBOARDS_DIR = path.join(OPS, 'grafana/dashboards');

export function readYaml(file: string): any {
  // merge: docker-compose.yml shares the services' settings through `<<:` keys.
  return parse(readFileSync(file, 'utf8'), { merge: true });
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const file = readYaml(ALERTS_FILE) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules.filter((rule) => rule.alert));
}

/** Every PromQL expression of a dashboard, with where it is (for messages). */
export function dashboardExpressions(): { where: string; expr: string }[] {
  const found: { where: string; expr: string }[] = [];
  for (const name of dashboardFiles()) {
    const dashboard = JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, name), 'utf8'));
    for (const panel of panelsOf(dashboard)) {
      for (const target of panel.targets ?? []) found.push({ where: `${name} "${panel.title}" ${target.refId}`, expr: target.expr });
    }
  }
  return found;
}

export function dashboardFiles(): string[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
}

/** Panels, including those folded into rows. */
export function panelsOf(dashboard: { panels?: any[] }): any[] {
  return (dashboard.panels ?? []).flatMap((panel) => [panel, ...panelsOf(panel)]);
}

/** Grafana's interval variables stand for a duration; promtool needs one to parse the query. */
export function withGrafanaVariablesFilled(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m');
}

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects: identifiers that are no function, keyword or label. */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  // Numbers (with a duration unit) are consumed whole so `5m` yields no identifier `m`.
  for (const match of bare.matchAll(/\d+(?:\.\d+)?(?:e[+-]?\d+)?[a-z]*|([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/gi)) {
    const [, identifier, call] = match;
    if (identifier && !call && !PROMQL_KEYWORDS.has(identifier.toLowerCase())) names.add(identifier);
  }
  return [...names];
}

type MetricKind = 'counter' | 'gauge' | 'histogram' | 'summary' | 'unknown';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'test' || name === 'testing' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The series names the services can expose, read from their source: metrics made through the
 * kit's helpers (`metrics.counter('name', ...)`), a module's own gauge makers (`queueGauge('name', ...)`)
 * or prom-client's constructors
 * (`new Gauge({ name: 'name', help, ... })`), plus prom-client's default metrics. A histogram
 * adds its `_bucket`, `_count` and `_sum` series.
 */
export async function registeredSeriesNames(): Promise<Set<string>> {
  const kinds = new Map<string, MetricKind>();
  const srcDirs = ['packages', 'services'].flatMap((top) =>
    readdirSync(path.join(ROOT, top)).map((name) => path.join(ROOT, top, name, 'src')),
  );
  for (const dir of srcDirs.filter((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isDirectory())) {
    for (const file of sourceFiles(dir)) {
      const text = readFileSync(file, 'utf8');
      for (const [, kind, name] of text.matchAll(/\.(counter|gauge|histogram|summary)\(\s*['"`]([a-zA-Z_:][a-zA-Z0-9_:]*)['"`]/g))
        kinds.set(name as string, kind as MetricKind);
      // A module's own maker of a family of gauges (`queueGauge('rabbitmq_queue_consumers', ...)`).
      for (const [, kind, name] of text.matchAll(/\b[a-z]\w*(Gauge|Counter|Histogram)\(\s*['"`]([a-zA-Z_:][a-zA-Z0-9_:]*)['"`]/g))
        kinds.set(name as string, (kind as string).toLowerCase() as MetricKind);
      for (const match of text.matchAll(/\bname:\s*['"`]([a-zA-Z_:][a-zA-Z0-9_:]*)['"`]\s*,\s*help:/g)) {
        const before = text.slice(Math.max(0, (match.index ?? 0) - 300), match.index);
        const constructor = [...before.matchAll(/new\s+(Counter|Gauge|Histogram|Summary)\b|\.(counter|gauge|histogram|summary)\(/g)].pop();
        kinds.set(match[1] as string, ((constructor?.[1] ?? constructor?.[2])?.toLowerCase() ?? 'unknown') as MetricKind);
      }
    }
  }
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const metric of await defaults.getMetricsAsJSON()) kinds.set(metric.name, String(metric.type) as MetricKind);
  const series = new Set<string>();
  for (const [name, kind] of kinds) {
    series.add(name);
    if (kind === 'histogram') ['_bucket', '_count', '_sum'].forEach((suffix) => series.add(name + suffix));
    if (kind === 'summary') ['_count', '_sum'].forEach((suffix) => series.add(name + suffix));
  }
  return series;
}

export interface PromtoolResult {
  status: number | null;
  output: string;
}

/** Runs promtool; a machine without it fails the test saying what to install, never skips. */
export function promtool(args: string[]): PromtoolResult {
  const result = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(
      "promtool is not installed: install Debian's `prometheus` package (apt-get install --no-install-recommends prometheus), which .ci/run does in CI",
    );
  }
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export function expectPromtoolPasses(args: string[]): string {
  const { status, output } = promtool(args);
  if (status !== 0) throw new Error(`promtool ${args.join(' ')} exited with ${status}:\n${output}`);
  return output;
}

/** GitHub's anchor for a Markdown heading. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
