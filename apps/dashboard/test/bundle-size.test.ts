import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDashboard, DASHBOARD_DIST } from '../../../scripts/build';

/** The JavaScript a first visit loads before anything else: the entry's chunk and its static imports. */
const INITIAL_JS_GZIP_BUDGET = 300 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

function initialChunks(manifest: Record<string, ManifestChunk>): string[] {
  const entry = Object.entries(manifest).find(([, chunk]) => chunk.isEntry);
  if (!entry) throw new Error('the manifest names no entry');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  visit(entry[0]);
  return [...seen].map((key) => manifest[key]!.file);
}

function sourcesOf(file: string): string[] {
  const map = path.join(DASHBOARD_DIST, `${file}.map`);
  if (!existsSync(map)) {
    expect(file).toMatch(/rolldown-runtime/);
    return [];
  }
  return (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources;
}

describe('the dashboard bundle', () => {
  let manifest: Record<string, ManifestChunk>;
  let initial: string[];

  beforeAll(async () => {
    // Builds only when the sources changed since the build in dist (scripts/build.ts).
    await buildDashboard();
    manifest = JSON.parse(readFileSync(path.join(DASHBOARD_DIST, '.vite', 'manifest.json'), 'utf8'));
    initial = initialChunks(manifest);
  });

  it(`loads at most ${INITIAL_JS_GZIP_BUDGET / 1024} KB of gzipped JavaScript first`, () => {
    const sizes = initial.map((file) => ({ file, gzip: gzipSync(readFileSync(path.join(DASHBOARD_DIST, file))).length }));
    const total = sizes.reduce((sum, chunk) => sum + chunk.gzip, 0);
    console.log(`initial JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${sizes.length} chunks (${sizes.map((chunk) => `${chunk.file} ${(chunk.gzip / 1024).toFixed(1)} KB`).join(', ')})`);
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
