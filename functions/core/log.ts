// Structured JSON logs (Powertools Logger), work run at an invocation's end, and a phone number masked for the logs.

import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs (Powertools Logger: one object a line, with the Lambda request id once
 * the endpoint middleware has added the context). Business metrics are in ./metrics.ts.
 * Never pass a secret, an OTP or a hash here; MSISDNs go through `maskMsisdn` first.
 */
export const logger = new Logger({ serviceName: 'hotspot-api' });

type Fields = Record<string, unknown>;

export const log = {
  info: (message: string, fields: Fields = {}) => logger.info(message, fields),
  warn: (message: string, fields: Fields = {}) => logger.warn(message, fields),
  error: (message: string, fields: Fields = {}) => logger.error(message, fields),
};

const endHooks: (() => void | Promise<void>)[] = [];

/**
 * Runs `fn` when each invocation ends, answered or failed (the endpoint wrapper and the job
 * wrapper call `endInvocation`). Modules that buffer per-invocation output register here, so a
 * function that never loads them carries none of their code. A hook does what it can at once;
 * the promise `endInvocation` answers settles once any hook's remaining work is done.
 */
export function atInvocationEnd(fn: () => void | Promise<void>): void {
  endHooks.push(fn);
}

export async function endInvocation(): Promise<void> {
  const later: Promise<void>[] = [];
  for (const fn of endHooks) {
    const done = fn();
    if (done) later.push(done);
  }
  await Promise.all(later);
}

/** `+22507123456` -> `+225*****3456`: enough to tell numbers apart in logs, not to dial them. */
export function maskMsisdn(msisdn: string): string {
  if (msisdn.length <= 8) return '***';
  return `${msisdn.slice(0, 4)}${'*'.repeat(msisdn.length - 8)}${msisdn.slice(-4)}`;
}
