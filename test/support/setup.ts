import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

// Every test file runs in its own process: this environment is what a deployed function gets.
const dir = mkdtempSync(join(tmpdir(), 'hotspot-test-'));
Object.assign(process.env, {
  STAGE: 'test',
  AWS_REGION: 'local',
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
  TABLE_NAME: process.env.TABLE_NAME ?? 'unset-use-useTestTable',
  SMS_MODE: 'outbox',
  SMS_OUTBOX: join(dir, 'sms-outbox.jsonl'),
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789abcdef',
  OTP_PEPPER: 'test-otp-pepper-0123456789abcdef',
  WEBHOOK_SECRET: 'test-webhook-secret-0123456789',
  RADIUS_API_SECRET: 'test-radius-api-secret-0123456789abcdef',
  ROUTER_CA_KEY: 'test-router-ca-key-0123456789abcdef0123456',
  ROUTER_SEAL_KEY: 'test-router-seal-key-0123456789abcdef01234',
  // DynamoDB Local under a whole run's load is slower than DynamoDB: see functions/core/ddb.ts.
  DYNAMODB_REQUEST_TIMEOUT_MS: '10000',
  DYNAMODB_CONNECT_TIMEOUT_MS: '5000',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
