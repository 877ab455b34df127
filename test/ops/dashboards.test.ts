import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import {
  alertRules,
  dashboardExpressions,
  dashboardFiles,
  DASHBOARDS_DIR,
  expectPromtoolPasses,
  metricNamesIn,
  OPS,
  panelsOf,
  PROMETHEUS_CONFIG,
  readYaml,
  registeredSeriesNames,
  ROOT,
  withGrafanaVariablesFilled,
} from './ops-files';

const SERVICES = ['gateway', 'identity', 'ledger', 'payments', 'treasury'];
const datasources = readYaml(path.join(OPS, 'grafana/provisioning/datasources/prometheus.yml')).datasources as {
  uid: string;
  type: string;
  url: string;
}[];
const providers = readYaml(path.join(OPS, 'grafana/provisioning/dashboards/wallet.yml')).providers as { options: { path: string } }[];

describe('metric names in PromQL', () => {
  it('are the selected series, not functions, aggregations, labels, keywords or durations', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket{route!~"a|b"}[$__rate_interval])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(metricNamesIn('max by (queue) (x{queue="ledger.commands"}) < 1 or absent(y{queue="q"}) offset 5m')).toEqual(['x', 'y']);
    expect(metricNamesIn('sum(a) / ignoring (b) group_left c_total > bool 1e3')).toEqual(['a', 'c_total']);
    expect(metricNamesIn('time() - max(reconciliation_last_run_timestamp_seconds)')).toEqual(['reconciliation_last_run_timestamp_seconds']);
  });
});

describe('ops/: alerts and dashboards query what the services expose', () => {
  it('every metric an alert or a dashboard panel selects is one the services register', async () => {
    const registered = await registeredSeriesNames();
    // Known to the scan, or the check below could pass by finding nothing.
    expect([...registered]).toEqual(
      expect.arrayContaining([
        'http_request_duration_seconds_bucket',
        'reconciliation_mismatches',
        'ledger_commands_total',
        'process_cpu_seconds_total',
      ]),
    );
    const queries = [...alertRules().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })), ...dashboardExpressions()];
    const unknown = queries.flatMap(({ where, expr }) => {
      const names = metricNamesIn(expr);
      if (names.length === 0) return [`${where}: selects no metric`];
      return names.filter((name) => !registered.has(name)).map((name) => `${where}: ${name}`);
    });
    expect(unknown).toEqual([]);
  });

  it('every dashboard query is valid PromQL (promtool checks them as recording rules)', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(20);
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-dashboards-'));
    try {
      const rules = expressions.map(({ expr }, index) => ({ record: `dashboard:query_${index}`, expr: withGrafanaVariablesFilled(expr) }));
      const file = path.join(dir, 'dashboard-queries.yml');
      writeFileSync(file, stringify({ groups: [{ name: 'dashboards', rules }] }));
      expect(expectPromtoolPasses(['check', 'rules', file])).toContain(`SUCCESS: ${expressions.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ops/grafana: dashboards and provisioning', () => {
  it('a money path dashboard and a queues dashboard, each with unique uid and panel ids, every panel querying the provisioned Prometheus', () => {
    expect(dashboardFiles()).toEqual(['money-path.json', 'queues.json']);
    const prometheus = datasources.find((source) => source.type === 'prometheus');
    expect(prometheus?.uid).toBeTruthy();
    const uids = new Set<string>();
    for (const name of dashboardFiles()) {
      const dashboard = JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, name), 'utf8'));
      expect(uids.has(dashboard.uid)).toBe(false);
      uids.add(dashboard.uid);
      const panels = panelsOf(dashboard).filter((panel) => panel.type !== 'row');
      expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
      for (const panel of panels) {
        expect({
          panel: panel.title,
          datasource: panel.datasource,
          fits: panel.gridPos.x + panel.gridPos.w <= 24,
          queries: panel.targets.length > 0,
        }).toEqual({
          panel: panel.title,
          datasource: { type: 'prometheus', uid: prometheus?.uid },
          fits: true,
          queries: true,
        });
        for (const target of panel.targets) expect(target.datasource).toEqual(panel.datasource);
      }
    }
  });

  it('the queues dashboard shows ready, unacknowledged, consumers, redeliveries and dead letters per queue', () => {
    const queries = dashboardExpressions().filter(({ where }) => where.startsWith('queues.json'));
    const names = new Set(queries.flatMap(({ expr }) => metricNamesIn(expr)));
    for (const name of [
      'rabbitmq_queue_messages_ready',
      'rabbitmq_queue_messages_unacknowledged',
      'rabbitmq_queue_consumers',
      'rabbitmq_queue_messages_redelivered_total',
      'amqp_messages_redelivered_total',
    ]) {
      expect({ name, shown: names.has(name) }).toEqual({ name, shown: true });
    }
    expect(queries.some(({ expr }) => expr.includes('dead_letter="true"') && expr.includes('by (queue)'))).toBe(true);
  });

  it('the money path dashboard shows transfers, 202s, errors, latency, outboxes, pending records, idempotency, reconciliation and retention', () => {
    const names = new Set(
      dashboardExpressions()
        .filter(({ where }) => where.startsWith('money-path.json'))
        .flatMap(({ expr }) => metricNamesIn(expr)),
    );
    for (const name of [
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
      'ledger_replies_timed_out_total',
      'outbox_messages',
      'outbox_oldest_message_age_seconds',
      'pending_records_oldest_age_seconds',
      'idempotency_keys_in_flight',
      'reconciliation_mismatches',
      'reconciliation_last_run_ok',
      'retention_behind_seconds',
      'retention_rows_purged_total',
    ]) {
      expect({ name, shown: names.has(name) }).toEqual({ name, shown: true });
    }
  });
});

describe('docker-compose.yml runs Prometheus, Grafana and Jaeger over the five services', () => {
  const compose = readYaml(path.join(ROOT, 'docker-compose.yml')) as { services: Record<string, any> };

  /** Where a compose service serves /metrics: the gateway's admin listener, every other service's own port. */
  function opsListener(service: string): string {
    const environment = compose.services[service].environment as Record<string, string>;
    const port = service === 'gateway' ? environment.ADMIN_PORT : environment[`${service.toUpperCase()}_PORT`];
    return `${service}:${port}`;
  }

  it("Prometheus scrapes each service's ops listener as compose names and configures it", () => {
    const config = readYaml(PROMETHEUS_CONFIG) as { scrape_configs: { metrics_path?: string; static_configs: { targets: string[] }[] }[] };
    const targets = config.scrape_configs.flatMap((job) => job.static_configs.flatMap((group) => group.targets));
    expect(targets.sort()).toEqual(SERVICES.map(opsListener).sort());
    expect(targets).toEqual(expect.arrayContaining(['gateway:8081', 'ledger:8092']));
    expect(config.scrape_configs.every((job) => (job.metrics_path ?? '/metrics') === '/metrics')).toBe(true);
  });

  it('Prometheus reads ops/prometheus, Grafana the provisioning and dashboards, and its datasource is that Prometheus', () => {
    const prometheus = compose.services.prometheus;
    expect(prometheus.volumes).toContain('./ops/prometheus:/etc/prometheus:ro');
    expect(prometheus.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    const grafana = compose.services.grafana;
    expect(grafana.volumes).toContain('./ops/grafana/provisioning:/etc/grafana/provisioning:ro');
    expect(grafana.volumes).toContain(`./ops/grafana/dashboards:${providers[0]?.options.path}:ro`);
    expect(datasources.map((source) => source.url)).toEqual([`http://prometheus:${prometheus.ports[0].split(':')[1]}`]);
  });

  it('every service sends its traces to Jaeger over OTLP', () => {
    expect(compose.services.jaeger.environment.COLLECTOR_OTLP_ENABLED).toBe('true');
    for (const service of SERVICES)
      expect({ service, endpoint: compose.services[service].environment.OTEL_EXPORTER_OTLP_ENDPOINT }).toEqual({
        service,
        endpoint: 'http://jaeger:4318',
      });
  });
});
