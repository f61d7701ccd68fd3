/**
 * Structured JSON logs, one object a line. Never pass a secret, an OTP or a hash here; MSISDNs
 * go through `maskMsisdn` first.
 */
type Fields = Record<string, unknown>;

function write(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  const line = JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

/** `+22507123456` -> `+225*****3456`: enough to tell numbers apart in logs, not to dial them. */
export function maskMsisdn(msisdn: string): string {
  if (msisdn.length <= 8) return '***';
  return `${msisdn.slice(0, 4)}${'*'.repeat(msisdn.length - 8)}${msisdn.slice(-4)}`;
}
