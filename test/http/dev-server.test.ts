import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb-local.js';
import { startDev, until } from '../support/dev-server.js';

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
    await until(() => dev.output().includes('Ctrl-C stops'));
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
  });
});
