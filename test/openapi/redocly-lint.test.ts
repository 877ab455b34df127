import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument, transferSchema } from '@wallet/contracts';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * Redocly CLI's recommended rules on the OpenAPI document the gateway serves, as configured in
 * redocly.yaml: no error, no warning. A rule is turned off only for a decision that
 * docs/decisions/openapi.md writes down.
 */

const ROOT = path.resolve(__dirname, '../..');
const REDOCLY = path.join(ROOT, 'node_modules/.bin/redocly');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/** The lint's problems, from its JSON report; it exits 1 when there are errors. */
async function lint(file: string): Promise<Problem[]> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const args = ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'];
  const stdout = await promisify(execFile)(REDOCLY, args, { env, cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).then(
    (result) => result.stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
  return (JSON.parse(stdout) as { problems: Problem[] }).problems;
}

const summary = (problems: Problem[]) => problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);

describe('redocly lint of the OpenAPI document', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('finds nothing in the document, nor in one with webhooks (the extension point for events)', async () => {
    const event = z.object({ id: z.string(), type: z.literal('transfer.completed'), data: z.object({ object: transferSchema }) });
    const documents = {
      'openapi.json': buildOpenApiDocument({ version: 'lint' }),
      'openapi-webhooks.json': buildOpenApiDocument({ version: 'lint', webhooks: [{ type: 'transfer.completed', schema: event }] }),
    };
    const files = Object.entries(documents).map(([name, document]) => {
      const file = path.join(folder, name);
      writeFileSync(file, JSON.stringify(document));
      return file;
    });
    const [served, withWebhooks] = await Promise.all(files.map(lint));
    expect(summary(served ?? [])).toEqual([]);
    expect(summary(withWebhooks ?? [])).toEqual([]);
  });

  it('turns off only rules docs/decisions/openapi.md decides against', () => {
    const config = parse(readFileSync(path.join(ROOT, 'redocly.yaml'), 'utf8')) as { extends: string[]; rules?: Record<string, unknown> };
    expect(config.extends).toEqual(['recommended']);
    const decisions = readFileSync(path.join(ROOT, 'docs/decisions/openapi.md'), 'utf8');
    const relaxed = Object.entries(config.rules ?? {}).filter(([, setting]) => setting !== 'error');
    expect(relaxed.map(([rule]) => rule).filter((rule) => !decisions.includes(`\`${rule}\``))).toEqual([]);
  });
});
