import { createHash } from 'node:crypto';
import type { ApiKeyPrincipal, SigningMaterial } from '@wallet/contracts';
import type { IdentityKeysClient } from './identity-keys-client';

interface Entry<Value> {
  keyId: string;
  value: Value;
  expiresAtMs: number;
}

/** One kind of lookup: its entries, and the lookups of it under way. */
interface Lookups<Value> {
  entries: Map<string, Entry<Value>>;
  /** A miss (or a refresh) under way per cache key: callers that miss meanwhile wait for it instead of asking identity again. */
  inFlight: Map<string, Promise<Value>>;
}

/**
 * Within the last part of its lifetime an entry is still served, and refreshed in the background
 * by the first request that sees it: a key in steady use never expires under its traffic, so
 * its requests never all wait on identity at once.
 */
const REFRESH_AHEAD_FRACTION = 0.2;

/**
 * Successful key lookups, in memory, for at most `ttlMs`. Secrets are held only as their
 * SHA-256, never in plain text. Concurrent misses of one key share one lookup. `invalidate(keyId)`
 * drops every entry of a key at once (its secret lookups and its signing material); `clear()`
 * drops everything, for when change messages may have been missed (the broker connection was
 * lost).
 */
export class KeyCache {
  private readonly secrets: Lookups<ApiKeyPrincipal> = { entries: new Map(), inFlight: new Map() };
  private readonly materials: Lookups<SigningMaterial> = { entries: new Map(), inFlight: new Map() };
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
    return this.lookup(
      this.secrets,
      hash,
      () => this.identity.authenticateSecret(secret),
      (principal) => principal.keyId,
    );
  }

  async signingMaterial(keyId: string): Promise<SigningMaterial> {
    return this.lookup(
      this.materials,
      keyId,
      () => this.identity.signingMaterial(keyId),
      (material) => material.principal.keyId,
    );
  }

  invalidate(keyId: string): void {
    this.generation += 1;
    for (const lookups of [this.secrets, this.materials] as Array<Lookups<unknown>>) {
      for (const [cacheKey, entry] of lookups.entries) if (entry.keyId === keyId) lookups.entries.delete(cacheKey);
      // A lookup under way may answer from before the change: later callers start their own.
      lookups.inFlight.clear();
    }
  }

  clear(): void {
    this.generation += 1;
    for (const lookups of [this.secrets, this.materials] as Array<Lookups<unknown>>) {
      lookups.entries.clear();
      lookups.inFlight.clear();
    }
  }

  get size(): number {
    return this.secrets.entries.size + this.materials.entries.size;
  }

  private async lookup<Value>(
    lookups: Lookups<Value>,
    cacheKey: string,
    ask: () => Promise<Value>,
    keyIdOf: (value: Value) => string,
  ): Promise<Value> {
    const now = this.nowMs();
    const entry = lookups.entries.get(cacheKey);
    if (entry && entry.expiresAtMs > now) {
      if (entry.expiresAtMs - now < this.ttlMs * REFRESH_AHEAD_FRACTION && !lookups.inFlight.has(cacheKey)) {
        // Served as it is; a failed refresh leaves the entry to expire as it would have.
        this.start(lookups, cacheKey, ask, keyIdOf).catch(() => undefined);
      }
      return entry.value;
    }
    if (entry) lookups.entries.delete(cacheKey);
    return lookups.inFlight.get(cacheKey) ?? this.start(lookups, cacheKey, ask, keyIdOf);
  }

  private start<Value>(
    lookups: Lookups<Value>,
    cacheKey: string,
    ask: () => Promise<Value>,
    keyIdOf: (value: Value) => string,
  ): Promise<Value> {
    const startedAt = this.generation;
    const asked = ask().then((value) => {
      this.store(lookups.entries, cacheKey, keyIdOf(value), value, startedAt);
      return value;
    });
    lookups.inFlight.set(cacheKey, asked);
    const settled = () => {
      if (lookups.inFlight.get(cacheKey) === asked) lookups.inFlight.delete(cacheKey);
    };
    asked.then(settled, settled);
    return asked;
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
