import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const source = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const CONTRACTS_SOURCE = fileURLToPath(new URL('../../packages/contracts/src/', import.meta.url));

/**
 * The contracts are shared with the services and written for Node. Their ids module fills a
 * random block with `Buffer.alloc` when it loads, a global a browser lacks: this plugin imports
 * the small stand-in of src/browser/buffer.ts into those contracts modules that name Buffer.
 */
function contractsBufferForTheBrowser(): Plugin {
  const shim = source('./src/browser/buffer.ts');
  return {
    name: 'wallet-contracts-buffer',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(CONTRACTS_SOURCE) || !/\bBuffer\.alloc\b/.test(code)) return null;
      return { code: `import { Buffer } from ${JSON.stringify(shim)};\n${code}`, map: null };
    },
  };
}

export default defineConfig({
  plugins: [contractsBufferForTheBrowser(), react()],
  resolve: {
    alias: [
      // The contracts import node:crypto for random ids and for request signing; a browser has
      // webcrypto for the first and must never do the second (src/browser/node-crypto.ts).
      { find: 'node:crypto', replacement: source('./src/browser/node-crypto.ts') },
      // zod without code generation, which the page's CSP forbids (src/browser/zod.ts, which takes zod itself as `zod/v4`).
      { find: /^zod$/, replacement: source('./src/browser/zod.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The bundle-size check (test/bundle-size.suite.ts) reads which chunks the page loads first.
    manifest: true,
    // Maps for reading a stack trace and for the bundle check, not referenced by the bundles: the gateway does not serve them.
    sourcemap: 'hidden',
    // The charts' lazy chunk is ECharts itself (~570 kB, ~190 kB gzipped); the initial budget is what matters.
    chunkSizeWarningLimit: 700,
  },
  server: {
    // `npm run dev`: the API paths go to the gateway's dashboard listener, so cookies stay same-origin.
    proxy: { '/v1': process.env.DASHBOARD_API_ORIGIN ?? 'http://127.0.0.1:8082' },
  },
});
