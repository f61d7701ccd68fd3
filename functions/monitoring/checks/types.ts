// A canary check's result, its failure and timing, and the five checks' names.

/** The five checks of a canary run, as the canary status answers them, in the order they are reported. */
export const CHECK_NAMES = [
  'dns_sinkhole',
  'api_health',
  'radius_auth',
  'portal_access',
  'data_transfer',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** What one check found. `error` is a stable reason code; `detail` is for operators only. */
export interface CheckResult {
  name: CheckName;
  success: boolean;
  latency_ms: number;
  error?: string;
  detail?: string;
  /** data_transfer only: kilobits per second over the whole download. */
  throughput_kbps?: number;
}

/** A failure a check reports on purpose, with its reason code. */
export class CheckFailure extends Error {
  readonly reason: string;
  constructor(reason: string, detail: string) {
    super(detail);
    this.name = 'CheckFailure';
    this.reason = reason;
  }
}

export const fail = (reason: string, detail: string): never => {
  throw new CheckFailure(reason, detail);
};

/**
 * Runs one check under its own deadline and measures it. The check gets an AbortSignal that
 * fires at the deadline so it can close its socket; whatever it throws becomes a failed
 * result, never an exception: one broken check must not hide the four others.
 */
export async function timed(
  name: CheckName,
  timeoutMs: number,
  // biome-ignore lint/suspicious/noConfusingVoidType: a check with nothing to add returns nothing.
  check: (signal: AbortSignal) => Promise<Partial<Pick<CheckResult, 'throughput_kbps' | 'detail'>> | void>,
): Promise<CheckResult> {
  const controller = new AbortController();
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckFailure('timeout', `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const extra = (await Promise.race([check(controller.signal), deadline])) ?? {};
    return { name, success: true, latency_ms: Math.round(performance.now() - started), ...extra };
  } catch (error) {
    const latency_ms = Math.round(performance.now() - started);
    if (error instanceof CheckFailure)
      return { name, success: false, latency_ms, error: error.reason, detail: error.message };
    if (controller.signal.aborted) {
      return {
        name,
        success: false,
        latency_ms,
        error: 'timeout',
        detail: `no answer within ${timeoutMs} ms`,
      };
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { name, success: false, latency_ms, error: 'error', detail: message };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
