import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * `npm run admin -- ...` the way an operator runs it (tsx on bin/admin.ts, no npx in between),
 * against the table `table()` names in the run's DynamoDB Local.
 */
export function adminCli(table: () => string): (...args: string[]) => Promise<CliResult> {
  return async (...args) => {
    try {
      const out = await run(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'bin/admin.ts', ...args], {
        env: { ...process.env, TABLE_NAME: table(), DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      });
      return { ...out, code: 0 };
    } catch (error) {
      const e = error as CliResult;
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  };
}

/** The arguments of `accounts add` for a reseller, then any options (`--name X`, `--reseller-id Y`). */
export const addReseller = (msisdn: string, ...options: string[]): string[] => [
  'accounts',
  'add',
  '--msisdn',
  msisdn,
  '--role',
  'reseller',
  ...options,
];
