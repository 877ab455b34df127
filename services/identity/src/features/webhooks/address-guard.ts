import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Webhook URLs are the tenant's to choose, so a delivery must not become the tenant's way into
 * the platform's own network (server-side request forgery). Only public unicast addresses are
 * allowed: a name is resolved and every address it resolves to is checked, at creation and again
 * on every connection (a name may resolve elsewhere by then), and deliveries never follow
 * redirects. Tests and development allow private addresses by explicit configuration only
 * (WEBHOOK_ALLOW_PRIVATE_ADDRESSES).
 */

export class AddressNotAllowedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address}, a ${range} address: webhooks go to public addresses only`);
    this.name = 'AddressNotAllowedError';
  }
}

/** The address's range as ipaddr.js names it (`unicast`, `private`, `loopback`, ...), an IPv4-mapped IPv6 address as its IPv4. */
export function addressRange(address: string): string {
  const parsed = ipaddr.parse(address);
  const plain =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return plain.range();
}

export interface AddressPolicy {
  allowPrivate: boolean;
}

/** Throws AddressNotAllowedError for an address outside public unicast, unless the policy allows private ones. */
export function checkAddress(policy: AddressPolicy, host: string, address: string): void {
  if (policy.allowPrivate) return;
  const range = addressRange(address);
  if (range !== 'unicast') throw new AddressNotAllowedError(host, address, range);
}

/** The host of a URL as a resolver takes it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Resolves the URL's host and checks every address it has (an endpoint's creation or change). */
export async function checkUrlAddresses(policy: AddressPolicy, url: URL): Promise<void> {
  const host = hostOf(url);
  const addresses = ipaddr.isValid(host) ? [{ address: host }] : await lookup(host, { all: true, verbatim: true });
  for (const { address } of addresses) checkAddress(policy, host, address);
}

/**
 * A `lookup` for the delivery's connections: the addresses a connection is about to use are the
 * ones checked, so a name that changed its answer since creation is caught where it matters.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true, verbatim: true })
      .then((addresses) => {
        for (const { address } of addresses) checkAddress(policy, hostname, address);
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 4));
  };
}
