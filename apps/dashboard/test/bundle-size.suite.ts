import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildDashboard, DASHBOARD_DIST, dashboardInitialJavaScript, dashboardManifest } from '../../../scripts/build';

/** The JavaScript a first visit loads before anything else: the entry's chunk and its static imports. */
const INITIAL_JS_GZIP_BUDGET = 300 * 1024;

function sourcesOf(file: string): string[] {
  const map = path.join(DASHBOARD_DIST, `${file}.map`);
  if (!existsSync(map)) {
    expect(file).toMatch(/rolldown-runtime/);
    return [];
  }
  return (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources;
}

describe('the dashboard bundle', () => {
  let manifest: ReturnType<typeof dashboardManifest>;
  let sizes: ReturnType<typeof dashboardInitialJavaScript>;
  let initial: string[];

  beforeAll(async () => {
    // Builds only when the sources changed since the build in dist (scripts/build.ts).
    await buildDashboard();
    manifest = dashboardManifest();
    sizes = dashboardInitialJavaScript(manifest);
    initial = sizes.map((chunk) => chunk.file);
  });

  it(`loads at most ${INITIAL_JS_GZIP_BUDGET / 1024} KB of gzipped JavaScript first`, () => {
    const total = sizes.reduce((sum, chunk) => sum + chunk.gzipBytes, 0);
    console.log(
      `initial JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${sizes.length} chunks (${sizes.map((chunk) => `${chunk.file} ${(chunk.gzipBytes / 1024).toFixed(1)} KB`).join(', ')})`,
    );
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(INITIAL_JS_GZIP_BUDGET);
  });

  it('loads ECharts only with the charts, never in the initial chunks', () => {
    // Every chunk but the bundler's own runtime has a source map naming the modules in it.
    const initialSources = initial.flatMap(sourcesOf);
    expect(initialSources.length).toBeGreaterThan(0);
    expect(initialSources.filter((source) => /node_modules\/(echarts|zrender)\//.test(source))).toEqual([]);
    const charts = manifest['src/pages/AnalyticsCharts.tsx'];
    expect(charts).toBeDefined();
    expect(initial).not.toContain(charts!.file);
    const chartSources = sourcesOf(charts!.file);
    expect(chartSources.some((source) => /node_modules\/echarts\//.test(source))).toBe(true);
  });
});
