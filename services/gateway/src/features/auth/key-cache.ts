import { createHash } from 'node:crypto';
import type { ApiKeyPrincipal, SigningMaterial } from '@wallet/contracts';
import type { IdentityKeysClient } from './identity-keys-client';

interface Entry<Value> {
  keyId: string;
  value: Value;
  expiresAtMs: number;
}

/**
 * Successful key lookups, in memory, for at most `ttlMs`. Secrets are held only as their
 * SHA-256, never in plain text. `invalidate(keyId)` drops every entry of a key at once (its
 * secret lookups and its signing material); `clear()` drops everything, for when change
 * messages may have been missed (the broker connection was lost).
 */
export class KeyCache {
  private readonly secrets = new Map<string, Entry<ApiKeyPrincipal>>();
  private readonly materials = new Map<string, Entry<SigningMaterial>>();
  /** Bumped by every invalidation: a lookup that started before one must not store its (maybe stale) answer. */
  private generation = 0;
  private lastSweepMs = 0;

  constructor(
    private readonly identity: IdentityKeysClient,
    private readonly ttlMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async principalForSecret(secret: string): Promise<ApiKeyPrincipal> {
    const hash = createHash('sha256').update(secret, 'utf8').digest('hex');
    const cached = this.fresh(this.secrets, hash);
    if (cached) return cached;
    const startedAt = this.generation;
    const principal = await this.identity.authenticateSecret(secret);
    this.store(this.secrets, hash, principal.keyId, principal, startedAt);
    return principal;
  }

  async signingMaterial(keyId: string): Promise<SigningMaterial> {
    const cached = this.fresh(this.materials, keyId);
    if (cached) return cached;
    const startedAt = this.generation;
    const material = await this.identity.signingMaterial(keyId);
    this.store(this.materials, keyId, material.principal.keyId, material, startedAt);
    return material;
  }

  invalidate(keyId: string): void {
    this.generation += 1;
    for (const entries of [this.secrets, this.materials] as Array<Map<string, Entry<unknown>>>) {
      for (const [cacheKey, entry] of entries) if (entry.keyId === keyId) entries.delete(cacheKey);
    }
  }

  clear(): void {
    this.generation += 1;
    this.secrets.clear();
    this.materials.clear();
  }

  get size(): number {
    return this.secrets.size + this.materials.size;
  }

  private fresh<Value>(entries: Map<string, Entry<Value>>, cacheKey: string): Value | undefined {
    const entry = entries.get(cacheKey);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.nowMs()) {
      entries.delete(cacheKey);
      return undefined;
    }
    return entry.value;
  }

  private store<Value>(entries: Map<string, Entry<Value>>, cacheKey: string, keyId: string, value: Value, startedAt: number): void {
    if (this.ttlMs <= 0 || startedAt !== this.generation) return;
    const now = this.nowMs();
    // Expired entries of keys nobody asks for again are swept at most once per TTL, not on every miss.
    if (now - this.lastSweepMs >= this.ttlMs) {
      this.lastSweepMs = now;
      for (const [otherKey, entry] of entries) if (entry.expiresAtMs <= now) entries.delete(otherKey);
    }
    entries.set(cacheKey, { keyId, value, expiresAtMs: now + this.ttlMs });
  }
}
