import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from './wait.js';

const tsx = join('node_modules', 'tsx', 'dist', 'cli.mjs');

/**
 * `npm start` (bin/dev.ts) in a child process, without the canary and FreeRADIUS (its own would
 * take 1812/1813, which the run's edge stack or a developer's npm start may hold). It gets no
 * DynamoDB Local or table of the test run unless `env` names them: by default it starts its own.
 * Its stdout and stderr are collected together.
 */
export function startDev(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const { DYNAMODB_ENDPOINT, TABLE_NAME, ...inherited } = process.env;
  const child = spawn(process.execPath, [tsx, 'bin/dev.ts'], {
    env: { ...inherited, LOCAL_CANARY: '0', LOCAL_RADIUS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => {
    output += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

/** Waits until `check()` holds, polling every 100 ms (no deadline of its own: test/support/wait.ts). */
export const until = (check: () => boolean): Promise<true> =>
  eventually(() => check() || Promise.reject(new Error('not yet in the output')), 100);
