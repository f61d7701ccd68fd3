// Writes functions/core/phone-metadata.json: libphonenumber's metadata cut to the countries served.

/**
 * `npx tsx bin/phone-metadata.ts`: writes functions/core/phone-metadata.json, the numbering-plan
 * metadata that MSISDN validation (functions/core/phone.mts) uses: libphonenumber-js's own "min"
 * metadata (the flavour `libphonenumber-js/min` bundles) cut down to the countries served. Run it
 * again after adding a country below or upgrading libphonenumber-js (test/unit/phone.test.ts fails
 * until the committed file matches).
 *
 * The whole world's metadata is 83 KB in every bundle that validates a number; these countries'
 * are 3 KB. A number from any other country is refused (ERR_MSISDN_INVALID).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The countries whose numbers may sign in, ISO 3166-1 alpha-2. The platform sells in the franc
 * CFA zone; its neighbours without the CFA franc are there for visitors roaming on their home
 * SIM (the code is sent by SMS to that SIM).
 */
export const SERVED_COUNTRIES = [
  // West African CFA franc (XOF, UEMOA)
  'BJ', // Benin +229
  'BF', // Burkina Faso +226
  'CI', // Côte d'Ivoire +225
  'GW', // Guinea-Bissau +245
  'ML', // Mali +223
  'NE', // Niger +227
  'SN', // Senegal +221
  'TG', // Togo +228
  // Central African CFA franc (XAF, CEMAC)
  'CM', // Cameroon +237
  'CF', // Central African Republic +236
  'CG', // Congo +242
  'GA', // Gabon +241
  'GQ', // Equatorial Guinea +240
  'TD', // Chad +235
  // Neighbours outside the CFA zone
  'GH', // Ghana +233 (Côte d'Ivoire, Burkina Faso, Togo)
  'GN', // Guinea +224 (Côte d'Ivoire, Mali, Senegal, Guinea-Bissau)
  'NG', // Nigeria +234 (Benin, Niger, Chad, Cameroon)
] as const;

/** libphonenumber-js's metadata JSON, as far as this file reads it. */
export interface PhoneMetadata {
  version: number;
  country_calling_codes: Record<string, string[]>;
  countries: Record<string, unknown[]>;
  nonGeographic?: Record<string, unknown[]>;
}

export const OUTPUT = fileURLToPath(new URL('../functions/core/phone-metadata.json', import.meta.url));

/** The full "min" metadata of the installed libphonenumber-js. */
export function sourceMetadata(): PhoneMetadata {
  const require = createRequire(import.meta.url);
  return JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.min.json'), 'utf8'));
}

/**
 * How people write a country's numbers, where libphonenumber-js writes them otherwise: an
 * Ivorian writes its ten digits in pairs ("07 00 00 00 01"), libphonenumber "07 00 00 0001".
 * Each replaces the national format of the numbers with those leading digits.
 */
const AS_WRITTEN: Record<string, { leading: string; pattern: string; format: string }[]> = {
  CI: [{ leading: '0', pattern: '(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})', format: '$1 $2 $3 $4 $5' }],
};

/** A country's plan with its formats as people write them (AS_WRITTEN). */
function asWritten(country: string, plan: unknown[]): unknown[] {
  const overrides = AS_WRITTEN[country];
  if (!overrides) return plan;
  const formats = (plan[4] as unknown[][]).map((f) => {
    const o = overrides.find((x) => (f[2] as string[] | undefined)?.join() === x.leading);
    return o ? [o.pattern, o.format, ...f.slice(2)] : f;
  });
  return [...plan.slice(0, 4), formats, ...plan.slice(5)];
}

/**
 * The metadata of `countries` only, formats as people write them (AS_WRITTEN). A calling code shared with a country left out (+1, +7,
 * +44...) would make that country's numbers parse against another country's plan: refused.
 */
export function subset(source: PhoneMetadata, countries: readonly string[]): PhoneMetadata {
  const keep = new Set(countries);
  const codes: Record<string, string[]> = {};
  for (const [code, members] of Object.entries(source.country_calling_codes)) {
    const served = members.filter((c) => keep.has(c));
    if (served.length === 0) continue;
    if (served.length !== members.length) {
      throw new Error(`+${code} is shared by ${members.join(', ')}: serve all of them or none`);
    }
    codes[code] = members;
  }
  const out: Record<string, unknown[]> = {};
  for (const c of [...keep].sort()) {
    const plan = source.countries[c];
    if (!plan) throw new Error(`${c}: not a country libphonenumber-js knows`);
    out[c] = asWritten(c, plan);
  }
  return { version: source.version, country_calling_codes: codes, countries: out };
}

function main(): void {
  const metadata = subset(sourceMetadata(), SERVED_COUNTRIES);
  writeFileSync(OUTPUT, `${JSON.stringify(metadata, null, 2)}\n`);
  // The project's formatter owns the layout of every JSON file it checks.
  const biome = spawnSync('npx', ['biome', 'format', '--write', OUTPUT], { stdio: 'inherit' });
  if (biome.status !== 0) throw new Error('biome format failed');
  const size = JSON.stringify(metadata).length;
  process.stdout.write(
    `${OUTPUT}: ${Object.keys(metadata.countries).length} countries, ${(size / 1024).toFixed(1)} KB minified\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
