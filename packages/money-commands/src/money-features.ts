import type { Features, ServiceParts, TenantDirectory } from '@wallet/kit';
import type { z } from 'zod';
import type { MemberDirectory } from './member-directory';
import { type Movement, registerMovements } from './movements';
import type { Postings } from './postings/postings';

/*
 * A service's money features, listed once (its `src/movements.ts`): its main spreads their
 * configuration, starts them, mounts their routes and stops them from that list, so a new
 * movement needs no line of main (docs/money-movements.md).
 */

/** What a service hands every money feature it starts: one object for them all. */
export interface MoneyFeatureDeps {
  postings: Postings;
  tenants: TenantDirectory;
  members: MemberDirectory;
}

/**
 * A feature folder's movements and how to start it. `Config` is what its start reads of the
 * service's configuration: its own variables (`config`) and any of the service's peers.
 */
export interface MoneyFeature<Shape extends z.ZodRawShape, Config, Deps = MoneyFeatureDeps> {
  /** The movements it answers (the transfers feature: transfers and their reversals). */
  movements: readonly Movement[];
  /** The variables it owns, spread into its service's configuration. */
  config: Shape;
  start: (parts: ServiceParts<Config>, deps: Deps) => Features;
}

/** A feature as its folder declares it, its types inferred from its parts. */
export function moneyFeature<Shape extends z.ZodRawShape, Config, Deps = MoneyFeatureDeps>(
  feature: MoneyFeature<Shape, Config, Deps>,
): MoneyFeature<Shape, Config, Deps> {
  return feature;
}

/** Every listed movement, in list order. */
export function moneyFeatureMovements(features: readonly { movements: readonly Movement[] }[]): readonly Movement[] {
  return features.flatMap((feature) => feature.movements);
}

type Intersection<Union> = (Union extends unknown ? (part: Union) => void : never) extends (whole: infer Whole) => void ? Whole : never;

/**
 * The listed features' variables, one shape for the service's configuration. A variable two of
 * them declare is refused: spread, the second would silently replace the first.
 */
export function moneyFeaturesConfigShape<const List extends readonly { config: z.ZodRawShape }[]>(
  features: List,
): Intersection<List[number]['config']> {
  const shape: Record<string, z.ZodRawShape[string]> = {};
  for (const { config } of features)
    for (const [name, schema] of Object.entries(config)) {
      if (name in shape) throw new Error(`${name} is declared by two money features`);
      shape[name] = schema;
    }
  return shape as Intersection<List[number]['config']>;
}

/**
 * Starts the listed features in list order, as one: their movements' finishers and awaited
 * records handed to the postings first (before the postings start), then their routes mounted in
 * list order (a list puts its busiest first: each router ahead of another is tried on its
 * requests in vain), their body opt-ins, and their stops in reverse order.
 */
export function startMoneyFeatures<Config, Deps extends { postings: Pick<Postings, 'register' | 'awaits'> }>(
  features: readonly MoneyFeature<z.ZodRawShape, Config, Deps>[],
  parts: ServiceParts<Config>,
  deps: Deps,
): Features {
  registerMovements(deps.postings, moneyFeatureMovements(features));
  const started = features.map((feature) => feature.start(parts, deps));
  return {
    routes: (app) => {
      for (const feature of started) feature.routes(app);
    },
    bodyOptIns: started.flatMap((feature) => feature.bodyOptIns ?? []),
    stop: async () => {
      for (const feature of [...started].reverse()) await feature.stop?.();
    },
  };
}
