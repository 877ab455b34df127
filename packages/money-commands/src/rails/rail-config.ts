import { z } from 'zod';

/** What a delivery through a rail is set by, whichever service delivers. */
const RAIL_SETTINGS = {
  /** Which rail approved cases leave through; only the sandbox exists so far, and tests always use it. */
  rail: z.enum(['sandbox']).default('sandbox'),
  /** Pause between delivery rounds over approved cases; 0 turns delivery off (cases stay approved). */
  intervalMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .refine((value) => value === 0 || value >= 50, '0 (off) or at least 50')
    .default(1_000),
  /** Cases delivered per round, oldest first. */
  batchSize: z.coerce.number().int().min(1).max(1_000).default(50),
  /** How long a delivery round holds its cases from the other instances'; a crashed instance's cases are delivered again after it. */
  leaseMs: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** How long the sandbox rail takes to answer, as a provider would. */
  sandboxDelayMs: z.coerce.number().int().min(0).max(60_000).default(100),
  /** Test hook: 1 stops delivery right after the rail answered and before recording, as a crash would. */
  crashAfterDelivery: z.enum(['0', '1']).default('0'),
};

const railSettingsSchema = z.object(RAIL_SETTINGS);
export type RailSettings = z.infer<typeof railSettingsSchema>;

/** Each setting's variable after the service's prefix; the sandbox's delay is named apart, as the sandbox is not the case type's. */
const SUFFIXES = {
  rail: '',
  intervalMs: '_INTERVAL_MS',
  batchSize: '_BATCH_SIZE',
  leaseMs: '_LEASE_MS',
  crashAfterDelivery: '_CRASH_AFTER_DELIVERY',
} as const;
type Suffixed = typeof SUFFIXES;

export type RailConfigShape<Prefix extends string, SandboxDelay extends string> = {
  [Setting in keyof Suffixed as `${Prefix}${Suffixed[Setting]}`]: (typeof RAIL_SETTINGS)[Setting];
} & { [Name in SandboxDelay]: (typeof RAIL_SETTINGS)['sandboxDelayMs'] };

/**
 * A service's variables for delivering one case type (docs/configuration.md): `<prefix>` names
 * the rail, `<prefix>_INTERVAL_MS`, `_BATCH_SIZE`, `_LEASE_MS` and `_CRASH_AFTER_DELIVERY` the
 * rest, and `sandboxDelay` the sandbox's delay; `settingsOf` reads them back from the parsed
 * configuration.
 */
export function railConfig<const Prefix extends string, const SandboxDelay extends string>(prefix: Prefix, sandboxDelay: SandboxDelay) {
  const names: Record<keyof RailSettings, string> = {
    ...(Object.fromEntries(Object.entries(SUFFIXES).map(([setting, suffix]) => [setting, `${prefix}${suffix}`])) as Record<
      keyof Suffixed,
      string
    >),
    sandboxDelayMs: sandboxDelay,
  };
  const entries = Object.entries(names) as Array<[keyof RailSettings, string]>;
  const shape = Object.fromEntries(entries.map(([setting, name]) => [name, RAIL_SETTINGS[setting]])) as RailConfigShape<
    Prefix,
    SandboxDelay
  >;
  return {
    shape,
    settingsOf: (config: { readonly [name: string]: unknown }): RailSettings =>
      railSettingsSchema.parse(Object.fromEntries(entries.map(([setting, name]) => [setting, config[name]]))),
  };
}
