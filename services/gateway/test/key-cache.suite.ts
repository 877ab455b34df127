import type { ApiKeyPrincipal, SigningMaterial } from '@wallet/contracts';
import { KeyCache } from '../src/features/auth/key-cache';
import type { IdentityKeysClient } from '../src/features/auth/identity-keys-client';

/** Identity's answers, counted; each lookup resolves when the test says so. */
function countingIdentity() {
  const asked: string[] = [];
  const waiting: Array<() => void> = [];
  let version = 0;
  const material = (keyId: string): SigningMaterial => {
    const principal: ApiKeyPrincipal = {
      keyId,
      tenantId: 'tn_1',
      environment: 'test',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      restrictions: { requireRequestSigning: true, requireActorHeaders: false, allowedIps: null },
      validUntil: null,
    };
    return { principal, signingSecrets: [{ secret: `secret-v${version}`, validUntil: null }] };
  };
  const identity: IdentityKeysClient = {
    authenticateSecret: async () => {
      throw new Error('not used');
    },
    authenticateSession: async () => {
      throw new Error('not used');
    },
    endSession: async () => {
      throw new Error('not used');
    },
    signingMaterial: (keyId) => {
      asked.push(keyId);
      return new Promise((resolve) => waiting.push(() => resolve(material(keyId))));
    },
  };
  return {
    identity,
    asked,
    /** Answers every lookup waiting, with the current version of the key's secret. */
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
    rotate: () => {
      version += 1;
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the gateway key cache', () => {
  it('asks identity once for many concurrent requests of a key it does not hold', async () => {
    const peer = countingIdentity();
    const cache = new KeyCache(peer.identity, 30_000);
    const lookups = Array.from({ length: 50 }, () => cache.signingMaterial('ak_1'));
    await flush();
    peer.answerAll();
    const answers = await Promise.all(lookups);
    expect(peer.asked).toEqual(['ak_1']);
    expect(new Set(answers.map((answer) => answer.signingSecrets[0]?.secret))).toEqual(new Set(['secret-v0']));
  });

  it('refreshes a key in use before it expires, serving the held answer meanwhile', async () => {
    let now = 1_000_000;
    const peer = countingIdentity();
    const cache = new KeyCache(peer.identity, 30_000, () => now);
    const first = cache.signingMaterial('ak_1');
    await flush();
    peer.answerAll();
    await first;

    now += 20_000;
    await cache.signingMaterial('ak_1');
    expect(peer.asked).toHaveLength(1);

    // In the last fifth of its life: answered at once from the cache, and refreshed behind it once.
    now += 5_000;
    peer.rotate();
    const served = await Promise.all([cache.signingMaterial('ak_1'), cache.signingMaterial('ak_1')]);
    expect(served.map((answer) => answer.signingSecrets[0]?.secret)).toEqual(['secret-v0', 'secret-v0']);
    expect(peer.asked).toHaveLength(2);
    peer.answerAll();
    await flush();

    // Past the first answer's expiry: the refreshed one, without asking again.
    now += 10_000;
    expect((await cache.signingMaterial('ak_1')).signingSecrets[0]?.secret).toBe('secret-v1');
    expect(peer.asked).toHaveLength(2);
  });

  it('does not keep an answer that was under way when the key changed', async () => {
    const peer = countingIdentity();
    const cache = new KeyCache(peer.identity, 30_000);
    const before = cache.signingMaterial('ak_1');
    await flush();
    cache.invalidate('ak_1');
    // A request after the change does not wait for the lookup that started before it.
    const after = cache.signingMaterial('ak_1');
    await flush();
    expect(peer.asked).toEqual(['ak_1', 'ak_1']);
    peer.answerAll();
    await Promise.all([before, after]);
    expect(cache.size).toBe(1);
  });
});
