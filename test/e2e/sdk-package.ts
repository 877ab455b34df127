import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/*
 * The SDK as a developer outside this repository gets it: `npm pack` of packages/sdk (whose
 * prepack builds dist from source), installed into an empty project under the system's temp
 * folder, then loaded by plain Node from CommonJS and from ESM and compiled by TypeScript.
 */

const ROOT = path.resolve(__dirname, '../..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const runFile = promisify(execFile);

/**
 * This process's environment without npm's variables: `npx jest` sets npm_config_local_prefix to
 * this repository, and an npm started with it installs here instead of into the temp project.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, ...extra };
}

async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<string> {
  try {
    const { stdout } = await runFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
  }
}

/**
 * What each consumer does with the SDK, in the common ground of JavaScript and strict TypeScript
 * so that one text serves the CommonJS script, the ESM script and the TypeScript file: a wallet
 * created twice with one Idempotency-Key, a list walked page by page, a signed (HMAC) call, and a
 * webhook verified and then refused tampered. It prints one JSON line.
 */
const SCENARIO = `
async function scenario() {
  const env = process.env;
  const baseUrl = String(env.WALLET_BASE_URL);
  const currencyCode = String(env.WALLET_CURRENCY);
  const secretKeyClient = new WalletClient({ baseUrl, auth: { type: 'secret', apiKey: String(env.WALLET_API_KEY) } });
  const idempotencyKey = 'sdk-package-' + currencyCode;
  const created = await secretKeyClient.wallets.create({ ownerType: 'user', ownerId: 'sdk-a', currencyCode }, { idempotencyKey });
  const repeated = await secretKeyClient.wallets.create({ ownerType: 'user', ownerId: 'sdk-a', currencyCode }, { idempotencyKey });
  await secretKeyClient.wallets.create({ ownerType: 'company', ownerId: 'sdk-b', currencyCode });
  const pages = [];
  for await (const page of paginate(secretKeyClient.wallets.list, { limit: 1, currencyCode })) pages.push(page.data.map((wallet) => wallet.id));

  const signingClient = new WalletClient({
    baseUrl,
    auth: { type: 'hmac', keyId: String(env.WALLET_HMAC_KEY_ID), signingSecret: String(env.WALLET_HMAC_SECRET) },
    fetch: globalThis.fetch,
  });
  const accounts = await signingClient.ledger.accounts({ currencyCode }, { signal: AbortSignal.timeout(30000) });

  const payload = String(env.WEBHOOK_PAYLOAD);
  const headers = JSON.parse(String(env.WEBHOOK_HEADERS));
  const event = verifyWebhook(Buffer.from(payload, 'utf8'), headers, [String(env.WEBHOOK_SECRET)]);
  let tampered = 'accepted';
  try {
    verifyWebhook(payload.replace('"1500.00"', '"9500.00"'), headers, String(env.WEBHOOK_SECRET));
  } catch (error) {
    tampered = error instanceof WebhookVerificationError ? error.reason : String(error);
  }
  return {
    created: created.id,
    repeated: repeated.id,
    balance: created.balance,
    pages,
    signedAccounts: accounts.data.map((account) => account.currencyCode),
    event: { id: event.id, type: event.type, amount: event.data.object.amount, sequence: String(event.data.object.sequence) },
    tampered,
  };
}

scenario().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

const NAMES = 'WalletClient, paginate, verifyWebhook, WebhookVerificationError';

const COMPILER_OPTIONS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  target: 'es2022',
  module: 'nodenext',
  types: ['node'],
  outDir: 'out',
};

/** The consumers and their two TypeScript configurations, written into the project. */
async function writeConsumers(project: string): Promise<void> {
  const files: Record<string, string> = {
    'consumer.cjs': `const { ${NAMES} } = require('@wallet/sdk');\n${SCENARIO}`,
    'consumer.mjs': `import { ${NAMES} } from '@wallet/sdk';\n${SCENARIO}`,
    // A .ts file of a package without "type": "module" compiles to CommonJS, a .mts file to ESM: each format's types are read.
    'consumer.ts': `import { ${NAMES} } from '@wallet/sdk';\n${SCENARIO}`,
    'consumer.mts': `import { ${NAMES} } from '@wallet/sdk';\n${SCENARIO}`,
    // Without the DOM library, every declaration file checked too: a type that only the DOM has would fail here.
    'tsconfig.json': JSON.stringify({
      compilerOptions: { ...COMPILER_OPTIONS, lib: ['es2022'], skipLibCheck: false },
      files: ['consumer.ts', 'consumer.mts'],
    }),
    // With it, as a project that also targets browsers has it; the library files were checked by the run above.
    'tsconfig.dom.json': JSON.stringify({
      compilerOptions: { ...COMPILER_OPTIONS, lib: ['es2022', 'dom'], skipLibCheck: true, noEmit: true },
      files: ['consumer.ts', 'consumer.mts'],
    }),
  };
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(path.join(project, name), text)));
}

export interface SdkProject {
  /** Runs one consumer (`consumer.cjs`, `consumer.mjs` or `out/consumer.js`) with plain node; its printed JSON. */
  run(script: string, env: Record<string, string>): Promise<unknown>;
  remove(): Promise<void>;
}

/** Packs the SDK, installs the tarball into an empty temp project and compiles its TypeScript consumers with the repository's tsc. */
export async function installPackedSdk(): Promise<SdkProject> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'wallet-sdk-package-'));
  const remove = () => rm(folder, { recursive: true, force: true });
  try {
    const packed = path.join(folder, 'packed');
    const project = path.join(folder, 'project');
    await Promise.all([mkdir(packed), mkdir(project)]);
    await run('npm', ['pack', '--pack-destination', packed], path.join(ROOT, 'packages', 'sdk'));
    const [tarball, ...others] = await readdir(packed);
    if (tarball === undefined || others.length > 0) throw new Error(`npm pack left ${[tarball, ...others].join(', ')}`);

    const rootManifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'wallet-sdk-consumer', private: true }));
    const typesNode = `@types/node@${rootManifest.devDependencies['@types/node']}`;
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(packed, tarball), typesNode], project);

    await writeConsumers(project);
    await Promise.all([
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], project),
      run(process.execPath, [TSC, '-p', 'tsconfig.dom.json'], project),
    ]);
    return {
      run: async (script, env) => {
        const printed = await run(process.execPath, [script], project, cleanEnv(env));
        return JSON.parse(printed.trim().split('\n').pop() ?? '') as unknown;
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
