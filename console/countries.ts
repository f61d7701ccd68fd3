/**
 * The countries whose numbers the platform serves, as the API's numbering plans hold them
 * (bin/phone-metadata.ts; test/unit/console-errors.test.ts keeps the two lists equal). Data only.
 */
export const SERVED: readonly string[] = [
  'BF',
  'BJ',
  'CF',
  'CG',
  'CI',
  'CM',
  'GA',
  'GH',
  'GN',
  'GQ',
  'GW',
  'ML',
  'NE',
  'NG',
  'SN',
  'TD',
  'TG',
];
