import { formatMoney, type MoneyFormatOptions } from '../format/money';

/** An API amount shown exactly, for its currency; tabular digits so columns line up. */
export function Money({
  amount,
  currencyCode,
  display,
}: {
  amount: string;
  currencyCode: string;
  display?: MoneyFormatOptions['currencyDisplay'];
}) {
  return (
    <span style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>
      {formatMoney(amount, currencyCode, { currencyDisplay: display })}
    </span>
  );
}
