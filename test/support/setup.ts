import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, inject } from 'vitest';
import { dropTestTables } from './db.js';
import { TEST_SECRETS } from './secrets.js';
import { stopWaiting } from './wait.js';

// Every test file runs in its own process: this environment is what a deployed function gets.
const dir = mkdtempSync(join(tmpdir(), 'hotspot-test-'));
Object.assign(process.env, {
  STAGE: 'test',
  AWS_REGION: 'local',
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
  TABLE_NAME: process.env.TABLE_NAME ?? 'unset-use-useTestTable',
  SMS_MODE: 'outbox',
  SMS_OUTBOX: join(dir, 'sms-outbox.jsonl'),
  ...TEST_SECRETS,
  // DynamoDB Local on a busy machine answers far slower than DynamoDB (functions/core/ddb.ts): a
  // request timed out is sent again by the SDK, and a write it applied meanwhile then fails its
  // condition. A bound against a hung connection, not a measure: no test depends on its speed.
  DYNAMODB_REQUEST_TIMEOUT_MS: '60000',
  DYNAMODB_CONNECT_TIMEOUT_MS: '5000',
  // Tests fire hundreds of calls at once from one process (the front's service has at most
  // FreeRADIUS's 32 REST connections in flight): sockets enough that none waits its timeout out.
  DYNAMODB_MAX_SOCKETS: '256',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

// A poll a timed-out test left running stops, and says what it last saw.
afterEach(stopWaiting);

// Registered first, so run last: after the file's own servers and stream readers have stopped.
afterAll(dropTestTables);
