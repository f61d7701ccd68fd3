import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb-local.js';

const tsx = join('node_modules', 'tsx', 'dist', 'cli.mjs');

function startDev(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  // The server must start its own DynamoDB Local, not reuse the test run's.
  const { DYNAMODB_ENDPOINT, TABLE_NAME, ...inherited } = process.env;
  const child = spawn(process.execPath, [tsx, 'bin/dev.ts'], {
    // Its own FreeRADIUS would take 1812/1813, which the run's edge stack or a developer's npm start may hold.
    env: { ...inherited, LOCAL_CANARY: '0', LOCAL_RADIUS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  return { child, output: () => output };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('npm start', () => {
  it('serves the API on DynamoDB Local and stops DynamoDB Local on Ctrl-C', async () => {
    const [port, dynamoPort] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'dev-'));
    const dev = startDev({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LOCAL_DIR: dir });
    await until(() => dev.output().includes('Ctrl-C stops'), 60_000);
    expect(dev.output()).toContain(`http://localhost:${port}`);
    expect(dev.output()).toContain(`DynamoDB: http://127.0.0.1:${dynamoPort}, started by this server`);
    expect(dev.output()).toContain('curl');

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/forfaits`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBeGreaterThan(0);

    dev.child.kill('SIGINT');
    expect(await exited(dev.child)).toBe(0);
    // DynamoDB Local went with it: nothing answers on its port any more.
    await expect(fetch(`http://127.0.0.1:${dynamoPort}`)).rejects.toThrow();
  }, 90_000);

  it('names the install command when Java is missing', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'nojava-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const dev = startDev({
      PATH: bin,
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
    });
    expect(await exited(dev.child)).toBe(1);
    expect(dev.output()).toContain('apt-get install -y default-jre-headless');
  }, 60_000);
});
