const { execFile } = require('node:child_process');
const { TestEnvironment } = require('jest-environment-node');

/**
 * The node environment, plus: the RabbitMQ vhosts a test file made (createTestVhost records them
 * in `__walletTestVhosts`) are deleted as soon as that file is done, not at the end of the run.
 * Every live vhost holds about sixteen of the broker's file handles; a whole run's worth at once
 * exhausts a broker started with the common limit of 1024 open files, and it then stalls.
 * The global teardown still sweeps whatever is left.
 */
class WalletTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__walletTestVhosts = [];
  }

  async teardown() {
    const names = [...(this.global.__walletTestVhosts ?? [])];
    await super.teardown();
    const amqpUrl = process.env.WALLET_TEST_AMQP_URL;
    if (!amqpUrl) return;
    for (const name of names) {
      if (!(await deleteViaManagementApi(amqpUrl, name))) await deleteViaCli(name);
    }
  }
}

async function deleteViaManagementApi(amqpUrl, name) {
  const parsed = new URL(amqpUrl);
  const base = process.env.TEST_AMQP_MANAGEMENT_URL ?? `http://${parsed.hostname}:15672`;
  const auth = Buffer.from(`${decodeURIComponent(parsed.username || 'guest')}:${decodeURIComponent(parsed.password || 'guest')}`).toString(
    'base64',
  );
  try {
    const response = await fetch(`${base}/api/vhosts/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: { authorization: `Basic ${auth}` },
      signal: AbortSignal.timeout(3000),
    });
    return response.ok || response.status === 404;
  } catch {
    return false;
  }
}

function deleteViaCli(name) {
  // A vhost the broker is slow to stop is left for the global teardown rather than holding this worker.
  return new Promise((resolve) => execFile('rabbitmqctl', ['delete_vhost', name], { timeout: 30_000 }, () => resolve()));
}

module.exports = WalletTestEnvironment;
