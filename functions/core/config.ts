// The shared settings read from the environment, each with its default, and how an area declares its own.

import * as z from 'zod/mini';
import { intSetting as int } from './schemas.js';

const rate = z.pipe(
  z.string(),
  z.transform((v) => Number(v)),
);

/**
 * Every setting the functions read from the environment, with its default. The CDK stack and
 * the local server set these; nothing else reads `process.env` for configuration.
 */
const ConfigSchema = z.object({
  /** Unset for functions without table access; `tableName()` fails loudly if one uses the table. */
  TABLE_NAME: z.optional(z.string().check(z.minLength(1))),
  STAGE: z._default(z.string(), 'local'),
  /** `sns` in AWS; `outbox` writes SMS to a JSONL file (local mode). */
  SMS_MODE: z._default(z.enum(['sns', 'outbox']), 'sns'),
  SMS_OUTBOX: z._default(z.string(), '.local/sms-outbox.jsonl'),
  SMS_SENDER_ID: z._default(z.string(), 'HOTSPOT'),
  JWT_ISSUER: z._default(z.string(), 'hotspot-platform'),
  JWT_AUDIENCE: z._default(z.string(), 'hotspot-api'),
  /** Share of the total that the payment aggregator keeps. */
  PROVIDER_FEE_RATE: z._default(rate, 0.02),
  /** Share of the total net of fees that goes to the operator. */
  OPERATOR_SHARE_RATE: z._default(rate, 0.3),
  VLAN_FIRST_ID: z._default(int, 10),
  VLAN_POOL_SIZE: z._default(int, 400),
  /** Public base URL of the API (sandbox payment pages, canary API check). */
  PUBLIC_BASE_URL: z._default(z.string(), 'http://localhost:3000'),
  /** `sandbox`: the local server's aggregator; `http`: a real aggregator over HTTPS. */
  AGGREGATOR_MODE: z._default(z.enum(['sandbox', 'http']), 'sandbox'),
  AGGREGATOR_BASE_URL: z._default(z.string(), ''),
  /** Per attempt, 3 attempts: with the back-off they fit the function's timeout (FUNCTION_TIMEOUT_S). */
  AGGREGATOR_TIMEOUT_MS: z._default(int, 2500),
});

/** Every function's timeout in AWS (lib/api-function.ts): outbound calls and their retries fit in it. */
export const FUNCTION_TIMEOUT_S = 10;

/**
 * The longest a call with retries may take: every attempt timing out, and the back-off between
 * them (`retryBaseMs`, doubled each time). It has to end a second before the function's timeout,
 * or the function is killed mid-retry and answers the caller nothing.
 */
export const worstCallMs = (timeoutMs: number, attempts: number, retryBaseMs: number): number =>
  attempts * timeoutMs + retryBaseMs * (2 ** Math.max(0, attempts - 1) - 1);

const resets: (() => void)[] = [];

/**
 * A getter for settings read from the environment: parsed once per container (cold start),
 * failing fast with the names of the bad settings. Areas with settings of their own define
 * them with this, next to their code.
 */
export function defineSettings<T>(schema: z.ZodMiniType<T>, check?: (value: T) => string[]): () => T {
  let cached: T | undefined;
  resets.push(() => {
    cached = undefined;
  });
  return () => {
    if (cached === undefined) {
      const parsed = schema.safeParse(process.env);
      if (!parsed.success) {
        const names = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
        throw new Error(`Invalid configuration: ${names}`);
      }
      const bad = check?.(parsed.data) ?? [];
      if (bad.length) throw new Error(`Invalid configuration: ${bad.join(', ')}`);
      cached = parsed.data;
    }
    return cached;
  };
}

/** The settings every function shares. */
export const config = defineSettings(ConfigSchema, (v) => [
  ...(v.PROVIDER_FEE_RATE >= 0 && v.PROVIDER_FEE_RATE < 1 ? [] : ['PROVIDER_FEE_RATE']),
  // The aggregator client's 3 attempts and back-off (functions/billing/gateways/http.ts).
  ...(worstCallMs(v.AGGREGATOR_TIMEOUT_MS, 3, 200) <= FUNCTION_TIMEOUT_S * 1000 - 1000
    ? []
    : ['AGGREGATOR_TIMEOUT_MS']),
  ...(v.OPERATOR_SHARE_RATE >= 0 && v.OPERATOR_SHARE_RATE <= 1 ? [] : ['OPERATOR_SHARE_RATE']),
]);

/** Tests change the environment between cases; this forgets every parsed copy. */
export function resetConfig(): void {
  for (const reset of resets) reset();
}
