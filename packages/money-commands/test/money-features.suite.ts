import type express from 'express';
import type { ServiceParts } from '@wallet/kit';
import { z } from 'zod';
import { moneyFeature, moneyFeaturesConfigShape, startMoneyFeatures } from '../src';

type Config = { LABEL: string };
/** The postings take the listed movements (none here) before the features start. */
type Deps = { tag: string; postings: { register: () => void; awaits: () => void } };
const postings = { register: () => undefined, awaits: () => undefined };

/** A feature that records what the list does with it, in one log shared by all. */
function recordingFeature(name: string, log: string[], config: z.ZodRawShape = {}) {
  return moneyFeature({
    movements: [],
    config,
    start: (parts: ServiceParts<Config>, deps: Deps) => {
      log.push(`start ${name} ${parts.config.LABEL} ${deps.tag}`);
      return {
        routes: () => void log.push(`routes ${name}`),
        bodyOptIns: [{ method: 'post', path: `/v1/${name}`, mediaTypes: ['text/csv'], limitBytes: 1 }],
        stop: async () => void log.push(`stop ${name}`),
      };
    },
  });
}

describe('startMoneyFeatures', () => {
  it('starts the listed features in list order with one deps object, mounts them in list order and stops them in reverse', async () => {
    const log: string[] = [];
    const list = ['transfers', 'payouts', 'deposits'].map((name) => recordingFeature(name, log));
    const parts = { config: { LABEL: 'cfg' } } as ServiceParts<Config>;
    const started = startMoneyFeatures(list, parts, { tag: 'deps', postings });
    started.routes({} as express.Express);
    await started.stop?.();
    expect(log).toEqual([
      'start transfers cfg deps',
      'start payouts cfg deps',
      'start deposits cfg deps',
      'routes transfers',
      'routes payouts',
      'routes deposits',
      'stop deposits',
      'stop payouts',
      'stop transfers',
    ]);
    expect(started.bodyOptIns?.map((route) => route.path)).toEqual(['/v1/transfers', '/v1/payouts', '/v1/deposits']);
  });
});

describe('moneyFeaturesConfigShape', () => {
  it("is every listed feature's variables, in one shape", () => {
    const shape = moneyFeaturesConfigShape([{ config: { A_MS: z.coerce.number() } }, { config: {} }, { config: { B: z.string() } }]);
    expect(Object.keys(shape)).toEqual(['A_MS', 'B']);
    expect(z.object(shape).parse({ A_MS: '5', B: 'b' })).toEqual({ A_MS: 5, B: 'b' });
  });

  it('refuses a variable two features declare', () => {
    expect(() => moneyFeaturesConfigShape([{ config: { A_MS: z.string() } }, { config: { A_MS: z.string() } }])).toThrow(
      'A_MS is declared by two money features',
    );
  });
});
