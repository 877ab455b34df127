/**
 * What the browser build gets for `node:crypto` (vite.config.ts aliases it here). The contracts
 * import it for two things: random ids (ids.ts), which webcrypto serves as well, and request
 * signing (signing.ts), which needs a service's secret and so never runs in a browser: those
 * functions throw if something calls them by mistake.
 */

/** Random bytes from webcrypto; ids.ts only indexes and slices them, so a Uint8Array stands in for a Buffer. */
export function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  // getRandomValues fills at most 65536 bytes per call.
  for (let offset = 0; offset < size; offset += 65536)
    globalThis.crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  return bytes;
}

function unavailable(name: string): never {
  throw new Error(`node:crypto ${name} is not available in the browser: request signing belongs to servers and the SDK`);
}

export function createHash(): never {
  return unavailable('createHash');
}

export function createHmac(): never {
  return unavailable('createHmac');
}

export function timingSafeEqual(): never {
  return unavailable('timingSafeEqual');
}
