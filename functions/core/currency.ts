// The countries served and their currency (the two CFA francs).

/**
 * The two CFA francs. They are worth the same against the euro but are different currencies:
 * a West African franc cannot be spent in Central Africa. The service never adds one to the
 * other: a payment, a voucher and a reseller each have one.
 */
export type Currency = 'XOF' | 'XAF';

/** UEMOA (BCEAO): the West African CFA franc. */
const UEMOA = ['BJ', 'BF', 'CI', 'GW', 'ML', 'NE', 'SN', 'TG'] as const;
/** CEMAC (BEAC): the Central African CFA franc. */
const CEMAC = ['CM', 'CF', 'CG', 'GA', 'GQ', 'TD'] as const;

/** The countries the platform sells in (ISO 3166-1 alpha-2). */
export const COUNTRIES = [...UEMOA, ...CEMAC] as const;
export type Country = (typeof COUNTRIES)[number];

export const isCountry = (v: string): v is Country => (COUNTRIES as readonly string[]).includes(v);

/** The currency of a country the platform sells in. */
export function currencyOf(country: Country): Currency {
  return (UEMOA as readonly string[]).includes(country) ? 'XOF' : 'XAF';
}

/** The countries sharing a country's currency. */
export const sameZone = (country: Country): readonly Country[] =>
  (UEMOA as readonly string[]).includes(country) ? UEMOA : CEMAC;
