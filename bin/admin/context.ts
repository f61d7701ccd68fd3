// What the operator CLI's commands share: flags parsed, a usage error, the table connected to.

import { waitForDynamo } from '../local/dynamodb-local.js';
import { LOCAL_TABLE, localSecrets } from '../local/env.js';

/** A usage error: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** `--msisdn +225... --role admin` -> `{ msisdn: '+225...', role: 'admin' }`; a bare flag is 'true'. */
export function parseFlags(args: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument: ${arg}`);
    const name = arg.slice(2);
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = 'true';
    else {
      flags[name] = next;
      i++;
    }
  }
  return flags;
}

export function required(flags: Record<string, string>, name: string): string {
  const value = flags[name];
  if (!value || value === 'true') throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * Points the store at the right table: AWS when TABLE_NAME is set (and DYNAMODB_ENDPOINT is
 * not), else the DynamoDB Local of `npm start`.
 */
export async function connectAdmin(): Promise<() => Promise<void>> {
  if (process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) return async () => undefined;
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`;
  try {
    await waitForDynamo(endpoint, 2000);
  } catch {
    throw new Error(
      `no DynamoDB at ${endpoint}: start the API with \`npm start\` first, or set TABLE_NAME for AWS`,
    );
  }
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME ??= LOCAL_TABLE;
  process.env.AWS_REGION ??= 'local';
  const secrets = localSecrets();
  for (const [k, v] of Object.entries(secrets)) process.env[k] ??= v;
  return async () => undefined;
}
