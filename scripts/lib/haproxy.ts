import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One address clients use, spread over the instances behind it. */
export interface Frontend {
  name: string;
  port: number;
  servers: number[];
  /** An HTTP path answering 200 when an instance is ready; without one, a TCP connect is the check. */
  readyPath?: string;
}

/**
 * HAProxy's configuration for `frontends` on 127.0.0.1. A request is sent to an instance that
 * passes its check (every second, out after two failures); one whose connection fails is tried
 * on another (`option redispatch`, `retries`), which is safe because nothing of it was sent.
 */
export function haproxyConfig(frontends: readonly Frontend[], statsPort: number): string {
  const sections = frontends.map((frontend) =>
    [
      `listen ${frontend.name}`,
      `  bind 127.0.0.1:${frontend.port}`,
      '  balance roundrobin',
      ...(frontend.readyPath ? [`  option httpchk GET ${frontend.readyPath}`] : []),
      '  default-server inter 1s fall 2 rise 2',
      ...frontend.servers.map((port, index) => `  server ${frontend.name}-${index + 1} 127.0.0.1:${port} check`),
    ].join('\n'),
  );
  return [
    'global',
    '  maxconn 8192',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 70s',
    '  timeout server 70s',
    '  option redispatch',
    '  retries 2',
    'listen stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /',
    ...sections,
    '',
  ].join('\n');
}

/** Debian's haproxy in the foreground with that configuration, its log beside it. */
export function startHaproxy(folder: string, frontends: readonly Frontend[], statsPort: number): ChildProcess {
  const config = path.join(folder, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(frontends, statsPort));
  const log = openSync(path.join(folder, 'haproxy.log'), 'a');
  const child = spawn('/usr/sbin/haproxy', ['-f', config, '-db'], { stdio: ['ignore', log, log] });
  closeSync(log);
  return child;
}
