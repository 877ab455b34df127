import { formatDateTime } from '../src/format/date';
import { formatMoney } from '../src/format/money';

describe('formatMoney', () => {
  it('groups thousands and pads to the currency scale without changing the figure', () => {
    expect(formatMoney('1234567.5', 'USD', { locale: 'en-US' })).toBe('USD 1,234,567.50');
    expect(formatMoney('0', 'USD', { locale: 'en-US' })).toBe('USD 0.00');
    expect(formatMoney('5000', 'UGX', { locale: 'en-US' })).toBe('UGX 5,000');
    expect(formatMoney('1234.567', 'KWD', { locale: 'en-US' })).toBe('KWD 1,234.567');
  });

  it('keeps every digit of amounts a JS number would round', () => {
    // 2^53 + 1 and a 17-significant-digit fraction: both change when parsed as a float.
    expect(formatMoney('9007199254740993.01', 'USD', { locale: 'en-US' })).toBe('USD 9,007,199,254,740,993.01');
    expect(formatMoney('999999999999999999.99', 'KES', { locale: 'en-US', currencyDisplay: 'none' })).toBe('999,999,999,999,999,999.99');
    expect(formatMoney('0.10', 'USD', { locale: 'en-US' })).toBe('USD 0.10');
  });

  it('shows an amount finer than its currency with all its digits instead of rounding it', () => {
    expect(formatMoney('10.005', 'USD', { locale: 'en-US' })).toBe('USD 10.005');
    expect(formatMoney('10.5', 'UGX', { locale: 'en-US' })).toBe('UGX 10.5');
  });

  it('puts the sign of a negative balance before the currency', () => {
    expect(formatMoney('-1500.25', 'EUR', { locale: 'en-US' })).toBe('-EUR 1,500.25');
    expect(formatMoney('-0.00', 'EUR', { locale: 'en-US' })).toBe('EUR 0.00');
  });

  it("uses the locale's separators", () => {
    expect(formatMoney('1234567.5', 'EUR', { locale: 'de-DE' })).toBe('EUR 1.234.567,50');
    expect(formatMoney('1234567.5', 'EUR', { locale: 'fr-FR', currencyDisplay: 'none' })).toMatch(/^1\s234\s567,50$/u);
  });

  it('shows a currency it does not know with the digits it has, and text that is no amount as is', () => {
    expect(formatMoney('1234.5', 'XYZ', { locale: 'en-US' })).toBe('XYZ 1,234.5');
    expect(formatMoney('1e3', 'USD', { locale: 'en-US' })).toBe('1e3');
  });
});

describe('formatDateTime', () => {
  const instant = '2026-11-23T21:05:09.120Z';

  it("shows the instant in the viewer's time zone", () => {
    const nairobi = formatDateTime(instant, { locale: 'en-GB', timeZone: 'Africa/Nairobi' });
    // UTC+3: past midnight, the next day.
    expect(nairobi.local).toContain('24 Nov 2026');
    expect(nairobi.local).toContain('00:05:09');
    const newYork = formatDateTime(instant, { locale: 'en-US', timeZone: 'America/New_York' });
    expect(newYork.local).toContain('Nov 23, 2026');
    expect(newYork.local).toContain('4:05:09');
  });

  it('gives the UTC instant for the title, the same whatever the zone', () => {
    expect(formatDateTime(instant, { timeZone: 'Asia/Tokyo' }).utc).toBe('2026-11-23 21:05:09.120 UTC');
    expect(formatDateTime(instant, { timeZone: 'America/Los_Angeles' }).utc).toBe('2026-11-23 21:05:09.120 UTC');
  });

  it('returns text that is no date unchanged', () => {
    expect(formatDateTime('not a date')).toEqual({ local: 'not a date', utc: 'not a date' });
  });
});
