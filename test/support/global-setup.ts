import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import {
  type DynamoDbLocal,
  freePort,
  startDynamoDbLocal,
  waitForDynamo,
} from '../../bin/local/dynamodb-local.js';
import {
  FREERADIUS_INSTALL_HINT,
  findBinary,
  freeRadiusAvailable,
  freeUdpPort,
} from '../../bin/local/freeradius.js';
import { type EdgeContext, radclient } from './radius.js';
import { TEST_SECRETS } from './secrets.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    edge: EdgeContext;
  }
}

const RADIUS_SECRET = 'test-radius-secret';
const TSX = join('node_modules', 'tsx', 'dist', 'cli.mjs');

let dynamo: DynamoDbLocal | undefined;
let stack: ChildProcess | undefined;
let stackDir: string | undefined;

/** One DynamoDB Local for the whole run (each test file makes its own table in it). */
export async function setup(project: TestProject): Promise<void> {
  let endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint) await waitForDynamo(endpoint, 5000);
  else {
    dynamo = await startDynamoDbLocal();
    endpoint = dynamo.endpoint;
  }
  project.provide('dynamoEndpoint', endpoint);
  project.provide('edge', await startEdgeStack(endpoint));
}

/**
 * The edge stack of the run: `npm start` itself (bin/dev.ts: the API on every route, and
 * FreeRADIUS with the shipped configuration in front of it) on its own table of the run's
 * DynamoDB Local, free ports, and the test secrets. One for the whole run, started in the
 * background: setup returns at once, and the edge tests wait for it (`edgeStack()` in
 * test/support/radius.ts), so runs without them do not wait for its few seconds.
 */
async function startEdgeStack(endpoint: string): Promise<EdgeContext> {
  stackDir = mkdtempSync(join(tmpdir(), 'hotspot-edge-'));
  const apiPort = await freePort();
  const radiusAuthPort = await freeUdpPort();
  let radiusAcctPort = await freeUdpPort();
  while (radiusAcctPort === radiusAuthPort) radiusAcctPort = await freeUdpPort();
  const radiusTlsPort = await freePort();
  const servicePort = await freePort();
  const context: EdgeContext = {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    serviceUrl: `http://127.0.0.1:${servicePort}`,
    table: `edge-${randomUUID()}`,
    radiusAuthPort,
    radiusAcctPort,
    radiusTlsPort,
    radiusSecret: RADIUS_SECRET,
    radiusApiSecret: TEST_SECRETS.RADIUS_API_SECRET,
    smsOutbox: join(stackDir, 'sms-outbox.jsonl'),
    readyFile: join(stackDir, 'ready'),
    failedFile: join(stackDir, 'failed'),
    logFile: join(stackDir, 'stack.log'),
  };
  if (!freeRadiusAvailable() || !findBinary('radclient')) {
    writeFileSync(context.failedFile, FREERADIUS_INSTALL_HINT);
    return context;
  }

  const log = createWriteStream(context.logFile);
  const { DYNAMODB_ENDPOINT, TABLE_NAME, ...inherited } = process.env;
  const child = spawn(process.execPath, [TSX, 'bin/dev.ts'], {
    env: {
      ...inherited,
      ...TEST_SECRETS,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: context.apiUrl,
      DYNAMODB_ENDPOINT: endpoint,
      TABLE_NAME: context.table,
      LOCAL_DIR: stackDir,
      SMS_OUTBOX: context.smsOutbox,
      RADIUS_SECRET,
      RADIUS_AUTH_PORT: String(radiusAuthPort),
      RADIUS_ACCT_PORT: String(radiusAcctPort),
      RADIUS_TLS_PORT: String(radiusTlsPort),
      RADIUS_SERVICE_PORT: String(servicePort),
      // A router registered or revoked by a test is held by the front within 200 ms.
      ROUTERS_REFRESH_MS: '200',
      RADSEC_PROXY_PORT: String(await freeUdpPort()),
      LOCAL_CANARY: '0',
      // The run's two workers load this machine: the API may take longer than a router would wait.
      RADIUS_API_TIMEOUT: '6',
      // Disconnects (RFC 5176) on a test's pace: the relay asks every 200 ms, a router has 800 ms
      // to answer, a retry waits 1 s then 2 s, a send unreported for 5 s counts as unanswered.
      RADIUS_DISCONNECT_POLL_MS: '200',
      RADIUS_DISCONNECT_TIMEOUT_MS: '800',
      RADIUS_DISCONNECT_BACKOFF_S: '1',
      RADIUS_DISCONNECT_WAIT_S: '5',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: teardown stops the server and the FreeRADIUS it started together.
    detached: true,
  });
  stack = child;
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  void watchStack(child, context);
  return context;
}

/** Marks the stack ready once the API and FreeRADIUS both answer, or failed if it exits first. */
async function watchStack(child: ChildProcess, context: EdgeContext): Promise<void> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const failed = (why: string) => writeFileSync(context.failedFile, why);
  child.once('exit', (code, signal) => {
    if (stack === child) failed(`npm start exited (${code ?? signal}); its output is in ${context.logFile}`);
  });
  // However long a busy machine takes (an edge test's hook timeout guards a hang).
  let apiUp = false;
  while (!exited()) {
    if (!apiUp) {
      apiUp = await fetch(`${context.apiUrl}/api/v1/forfaits`, { signal: AbortSignal.timeout(1000) }).then(
        (res) => res.status < 500,
        () => false,
      );
    } else {
      const reply = await radclient(
        'status',
        { 'Message-Authenticator': '0x00' },
        { port: context.radiusAuthPort, secret: context.radiusSecret, timeoutS: 1 },
      ).catch(() => undefined);
      if (reply && reply.code !== 'timeout') {
        writeFileSync(context.readyFile, new Date().toISOString());
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function teardown(): Promise<void> {
  const child = stack;
  stack = undefined;
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    const group = -child.pid;
    process.kill(group, 'SIGTERM');
    const force = setTimeout(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await gone;
    clearTimeout(force);
  }
  if (stackDir) rmSync(stackDir, { recursive: true, force: true });
  await dynamo?.stop();
}
