// DynamoDB Local started (or found) on a loopback port, and stopped.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The Java process (the bench reads its CPU time); undefined for an endpoint we did not start. */
  pid?: number;
  /** Stops the Java process (no-op for an endpoint we did not start). */
  stop: () => Promise<void>;
}

const JAVA_HINT =
  'DynamoDB Local needs Java 17 or newer. Install it with `sudo apt-get install -y default-jre-headless` ' +
  '(Debian/Ubuntu) or `brew install openjdk@17` (macOS), or point DYNAMODB_ENDPOINT at a DynamoDB Local ' +
  'that is already running.';

/** The folder of the DynamoDB Local jar that the npm package `amplify-dynamodb-simulator` ships. */
export function emulatorDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('amplify-dynamodb-simulator/package.json');
  const dir = join(dirname(pkg), 'emulator');
  if (!existsSync(join(dir, 'DynamoDBLocal.jar'))) {
    throw new Error(`DynamoDB Local jar not found in ${dir}: run \`npm install\``);
  }
  return dir;
}

export function javaVersion(): number | undefined {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
  if (!match?.[1]) return undefined;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Waits until DynamoDB answers at `endpoint`. */
export async function waitForDynamo(
  endpoint: string,
  timeoutMs = 30_000,
  child?: ChildProcess,
): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child && child.exitCode !== null)
        throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer at ${endpoint}: ${String(error)}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * Starts DynamoDB Local (in memory unless `dbPath` is given) on `port` and waits until it
 * answers. The caller must call `stop()`; the process is also killed if this process exits.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dbPath?: string } = {},
): Promise<DynamoDbLocal> {
  if (javaVersion() === undefined) throw new Error(`Java was not found. ${JAVA_HINT}`);
  const version = javaVersion() ?? 0;
  if (version < 17) throw new Error(`Java ${version} found. ${JAVA_HINT}`);
  const dir = emulatorDir();
  const port = options.port ?? (await freePort());
  const storage = options.dbPath ? ['-dbPath', options.dbPath, '-sharedDb'] : ['-inMemory'];
  // No host option exists (`java -jar DynamoDBLocal.jar -help`): the jar listens on every
  // interface, without authentication. The README ("Local mode: who can reach it") says what to do.
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-Xmx512m',
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      ...storage,
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitForDynamo(endpoint, 30_000, child);
  } catch (error) {
    kill();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', kill);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(kill, 3000).unref();
      }),
  };
}
