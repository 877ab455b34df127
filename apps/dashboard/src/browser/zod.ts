import { z } from 'zod/v4';

/**
 * The zod every module of the page imports as `zod` (vite.config.ts), told first not to compile
 * parsers with `new Function`. zod probes whether it may with one as soon as an object schema
 * is built (the contracts build theirs as they load), and the page's CSP has no 'unsafe-eval':
 * the probe is blocked, which zod survives, but the browser reports a violation on every screen.
 * A first import in main.tsx is not enough: the build puts the contracts in a chunk the entry
 * imports, and a chunk's imports run before its own code. Through this module the setting
 * precedes every schema, whatever the chunks. Parsing without compiled code is plenty here.
 */
z.config({ jitless: true });

export * from 'zod/v4';
export { default } from 'zod/v4';
