import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { ApiKeyRestrictions } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { actorFromHeaders } from './authenticators';
import type { IncomingCall } from './principal';

/** `::ffff:10.0.0.1` is how a dual-stack socket shows an IPv4 peer; allowlists name it as 10.0.0.1. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

function allowlistOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix] = cidr.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    // The contract schema only lets CIDRs and addresses through; anything else allows nothing.
    if (!family) continue;
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

export function isAddressAllowed(cidrs: readonly string[], remoteAddress: string | undefined): boolean {
  if (!remoteAddress) return false;
  const address = plainAddress(remoteAddress);
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  return family !== null && allowlistOf(cidrs).check(address, family);
}

/**
 * What a key restricts beyond its credential (docs/decisions/authentication.md): the source address
 * (`403 IP_NOT_ALLOWED`) and the actor headers (`403 ACTOR_HEADERS_REQUIRED`). No list, or an
 * empty one, restricts no address.
 */
export function enforceRestrictions(restrictions: ApiKeyRestrictions, call: IncomingCall): void {
  if (restrictions.allowedIps && restrictions.allowedIps.length > 0 && !isAddressAllowed(restrictions.allowedIps, call.remoteAddress)) {
    throw new AppError('IP_NOT_ALLOWED', 'This key may not be used from this address');
  }
  if (restrictions.requireActorHeaders && !actorFromHeaders(call)) {
    throw new AppError('ACTOR_HEADERS_REQUIRED', 'This key needs the X-Service-Actor-Type and X-Service-Actor-Id headers');
  }
}
