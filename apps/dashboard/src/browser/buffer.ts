/**
 * The one piece of Node's Buffer the contracts touch when they load in a browser: ids.ts starts
 * with an empty `Buffer.alloc(0)` random block (refilled by randomBytes, a Uint8Array here).
 * vite.config.ts imports this into the contracts' modules that name Buffer, instead of putting
 * a fake Buffer on the page's global object where libraries would take it for Node's.
 */
export const Buffer = {
  alloc(size: number): Uint8Array {
    return new Uint8Array(size);
  },
};
