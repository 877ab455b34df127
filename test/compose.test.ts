import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

function composeCli(): string[] | null {
  for (const command of [['docker-compose'], ['docker', 'compose']]) {
    try {
      execFileSync(command[0] as string, [...command.slice(1), 'version'], { stdio: 'ignore', timeout: 10_000 });
      return command;
    } catch {
      // not installed (no engine is needed: `config` only reads the file)
    }
  }
  return null;
}

function compose(cli: string[], args: string[]): string {
  return execFileSync(cli[0] as string, [...cli.slice(1), '-f', COMPOSE_FILE, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

/** Without a compose CLI (and no YAML parser installed) the keys of the top-level `services:` block. */
function servicesDeclaredInText(): string[] {
  const lines = readFileSync(COMPOSE_FILE, 'utf8').split('\n');
  const start = lines.indexOf('services:');
  const block = lines.slice(start + 1);
  const end = block.findIndex((line) => /^\S/.test(line));
  return (end === -1 ? block : block.slice(0, end)).flatMap((line) => /^ {2}([a-z][\w-]*):\s*$/.exec(line)?.[1] ?? []);
}

describe('docker-compose.yml', () => {
  it('is valid and declares the five services, PostgreSQL, RabbitMQ, the trace viewer, Prometheus and Grafana', () => {
    const cli = composeCli();
    let services: string[];
    if (cli) {
      compose(cli, ['config', '-q']);
      services = compose(cli, ['config', '--services']).split('\n').filter(Boolean);
    } else {
      services = servicesDeclaredInText();
    }
    expect(services.sort()).toEqual([
      'gateway',
      'grafana',
      'identity',
      'jaeger',
      'ledger',
      'payments',
      'postgres',
      'prometheus',
      'rabbitmq',
      'treasury',
    ]);
  });
});
