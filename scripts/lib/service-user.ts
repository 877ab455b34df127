import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

/**
 * Debian's server packages run their servers as their own users (`rabbitmq`, `postgres`), and
 * initdb refuses root. When this runs as root, servers it starts for a one-machine cluster run as
 * that user (its Erlang cookie, its file ownership); otherwise as the caller.
 */

/**
 * Where such commands run: the caller's folder may be closed to that user (a checkout in a
 * mkdtemp folder is its owner's alone), and Erlang's CLI fails outright without its working folder.
 */
export const SERVICE_USER_CWD = '/';

/** The user's ids when this process is root and the user exists, else undefined (run as the caller). */
export function serviceUser(name: string): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** `command args…` as the service user (through su) where serviceUser says so, else as given. */
export function asServiceUser(name: string, command: string, args: readonly string[]): [string, string[]] {
  if (!serviceUser(name)) return [command, [...args]];
  return ['su', [name, '-s', '/bin/sh', '-c', [command, ...args].map(quote).join(' ')]];
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
