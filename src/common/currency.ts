import iso4217 from 'currency-codes';

/**
 * Minor digits of each currency, from ISO 4217 (CONTRACT 3.4: 2 for most, 0 for JPY or KRW,
 * 3 for KWD or BHD). Not from `Intl.NumberFormat(…).resolvedOptions().maximumFractionDigits`:
 * V8 takes those from CLDR, which differs from ISO 4217 for 17 of the 162 currencies Node
 * knows (IQD: ISO 3, Intl 0; HUF, IDR, COP, PKR…: ISO 2, Intl 0), and they come with the ICU
 * data of whichever Node binary runs, so an upgrade could silently change what a stored amount
 * in minor units means. `currency-codes` is ISO's own list (List One, ingested by the
 * package's script), plain data that runs on every Node line, pinned by the lockfile: moving
 * it is a reviewed change (currency.spec.ts pins the digits the contract names). Built once:
 * a lookup is a Map read.
 */
const ISO_DIGITS = new Map(iso4217.data.map((c) => [c.code, c.digits]));

/**
 * Codes a tenant may hold: ISO 4217 currencies in use (the package's list) that Node can also
 * name (`Intl.supportedValuesOf`), so withdrawn codes (HRK) and funds or metals (XAU, CLF,
 * XTS) are refused.
 */
const TENANT_CURRENCIES = new Set(
  Intl.supportedValuesOf('currency').filter((code) => ISO_DIGITS.has(code)),
);

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && TENANT_CURRENCIES.has(code);
}

/**
 * The currency's minor digits (ISO 4217). A code the list does not hold (a tenant created in a
 * code since withdrawn, or one newer than the package's list) has 2: ECMA-402's default, and
 * the scale every amount was stored with before currencies had their own digits.
 */
export function minorDigits(currency: string): number {
  return ISO_DIGITS.get(currency) ?? 2;
}

/** The most minor digits a tenant's currency has (3: KWD, BHD…): what a DTO lets through. */
export const MAX_MINOR_DIGITS = Math.max(...[...TENANT_CURRENCIES].map(minorDigits));
