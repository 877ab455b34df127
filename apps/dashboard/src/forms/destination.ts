import {
  bankDestinationSchema,
  cashDestinationSchema,
  momoDestinationSchema,
  type WithdrawalDestination,
  type WithdrawalMethod,
} from '@wallet/contracts';
import type { z } from 'zod';
import { checkForm, optionalText, type SchemaCheck } from './schema';

/** A destination's fields for each method, as the forms ask for them; `optional` ones may stay empty. */
export const DESTINATION_FIELDS: Record<
  WithdrawalMethod,
  ReadonlyArray<{ name: string; label: string; optional?: boolean; placeholder?: string }>
> = {
  momo: [
    { name: 'phoneNumber', label: 'Phone number', placeholder: '+256700000000' },
    { name: 'network', label: 'Network', placeholder: 'MTN' },
  ],
  bank: [
    { name: 'bankCode', label: 'Bank code' },
    { name: 'accountNumber', label: 'Account number' },
    { name: 'accountName', label: 'Account name' },
  ],
  cash: [
    { name: 'recipientName', label: 'Recipient name' },
    { name: 'location', label: 'Location', optional: true },
  ],
};

const SCHEMAS = { momo: momoDestinationSchema, bank: bankDestinationSchema, cash: cashDestinationSchema } as const;

/**
 * The destination fields of `method` checked by its contracts schema, each problem keyed by its
 * field (the request's own check would key them all as `destination`).
 */
export function checkDestination(
  method: WithdrawalMethod,
  values: Readonly<Record<string, string>>,
): SchemaCheck<z.ZodType<WithdrawalDestination>> {
  const entered = Object.fromEntries(DESTINATION_FIELDS[method].map((field) => [field.name, optionalText(values[field.name] ?? '')]));
  return checkForm(SCHEMAS[method] as z.ZodType<WithdrawalDestination>, entered as WithdrawalDestination);
}
