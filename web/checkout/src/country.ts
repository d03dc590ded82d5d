/**
 * The country field's default when the merchant gave none (docs/decisions.md "The checkout's country
 * default"): the currency's country for a currency of one main country (INR → IN), else the region of the
 * payer's locale. The euro and the other currencies of several countries name none: the locale decides.
 */
const CURRENCY_COUNTRY: Record<string, string> = {
  AED: 'AE',
  ARS: 'AR',
  AUD: 'AU',
  BDT: 'BD',
  BGN: 'BG',
  BHD: 'BH',
  BRL: 'BR',
  CAD: 'CA',
  CHF: 'CH',
  CLP: 'CL',
  CNY: 'CN',
  COP: 'CO',
  CZK: 'CZ',
  DKK: 'DK',
  EGP: 'EG',
  GBP: 'GB',
  HKD: 'HK',
  HUF: 'HU',
  IDR: 'ID',
  ILS: 'IL',
  INR: 'IN',
  ISK: 'IS',
  JOD: 'JO',
  JPY: 'JP',
  KES: 'KE',
  KRW: 'KR',
  KWD: 'KW',
  LKR: 'LK',
  MXN: 'MX',
  MYR: 'MY',
  NGN: 'NG',
  NOK: 'NO',
  NPR: 'NP',
  NZD: 'NZ',
  OMR: 'OM',
  PEN: 'PE',
  PHP: 'PH',
  PKR: 'PK',
  PLN: 'PL',
  QAR: 'QA',
  RON: 'RO',
  SAR: 'SA',
  SEK: 'SE',
  SGD: 'SG',
  THB: 'TH',
  TRY: 'TR',
  TWD: 'TW',
  UAH: 'UA',
  USD: 'US',
  VND: 'VN',
  ZAR: 'ZA',
};

export function defaultCountry(currency: string, locale: string): string {
  return CURRENCY_COUNTRY[currency.toUpperCase()] ?? regionOf(locale);
}

/** "de-DE" → DE; a locale without a region gets its likeliest one ("de" → DE); none or a UN area ("es-419") → "". */
function regionOf(locale: string): string {
  let region: string | undefined;
  try {
    region = new Intl.Locale(locale).maximize().region;
  } catch {
    return '';
  }
  return region && /^[A-Z]{2}$/.test(region) ? region : '';
}
