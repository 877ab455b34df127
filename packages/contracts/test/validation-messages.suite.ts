import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { createTransferBodySchema, parseJsonLossless } from '@wallet/contracts';
import { jsonKindOf, configureJsonKindMessages } from '@wallet/contracts/zod-messages';

// As every service does at start (kit's errors).
configureJsonKindMessages();

const JSON_KINDS = /received (number|string|boolean|null|array|object)$/;

describe('validation messages in the contract’s words', () => {
  it('names what came as a JSON kind, never an internal class, whatever JSON a string field receives', () => {
    const field = z.object({ reason: z.string() });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const received = parseJsonLossless(JSON.stringify({ reason: value })) as { reason: unknown };
        const result = field.safeParse(received);
        if (result.success) return;
        for (const issue of result.error.issues) expect(issue.message).toMatch(JSON_KINDS);
      }),
    );
  });

  it('says a number came when a body holds a number token where text belongs', () => {
    const body = parseJsonLossless('{"fromWalletId":12,"toWalletId":"wl_a","amount":1,"currencyCode":"USD"}');
    const result = createTransferBodySchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
    expect(jsonKindOf(new LosslessNumber('1.5'))).toBe('number');
  });
});
