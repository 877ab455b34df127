import { type CreateTenantBody, checkAmount } from '@wallet/contracts';
import { AppError } from '@wallet/kit';

export interface CheckedTenantConfig {
  defaultCurrency: string;
  allowedCurrencies: string[];
  /** Exact decimal text as the client sent it, checked against the default currency. */
  maxTransactionAmount: string;
}

/**
 * Rules the schema cannot express: the default currency is one of the allowed ones, no
 * currency is listed twice, and the ceiling is a valid amount of the default currency.
 */
export function checkTenantConfig(config: Pick<CreateTenantBody['config'], keyof CheckedTenantConfig>): CheckedTenantConfig {
  const { defaultCurrency, allowedCurrencies, maxTransactionAmount } = config;
  const fields: Array<{ path: string; message: string }> = [];
  if (!allowedCurrencies.includes(defaultCurrency)) {
    fields.push({ path: 'config.defaultCurrency', message: 'must be one of config.allowedCurrencies' });
  }
  const repeated = allowedCurrencies.filter((code, index) => allowedCurrencies.indexOf(code) !== index);
  if (repeated.length > 0) {
    fields.push({ path: 'config.allowedCurrencies', message: `lists ${[...new Set(repeated)].join(', ')} more than once` });
  }
  if (fields.length > 0) throw new AppError('VALIDATION_ERROR', 'Invalid request body', { fields });

  const problem = checkAmount(maxTransactionAmount, defaultCurrency);
  if (problem) {
    throw new AppError('INVALID_AMOUNT', `config.maxTransactionAmount is not a valid ${defaultCurrency} amount`, {
      field: 'config.maxTransactionAmount',
      currencyCode: defaultCurrency,
      problem,
    });
  }
  return { defaultCurrency, allowedCurrencies, maxTransactionAmount };
}
