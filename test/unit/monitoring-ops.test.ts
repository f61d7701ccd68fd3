import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { notifyOps } from '../../functions/monitoring/ops.js';
import type { Alert } from '../../functions/store/alerts.js';
import { fakeSns } from '../support/fake-sns.js';

const alert: Alert = {
  id: '6f1c2a52-8a9e-4b7e-9d55-0c7c3d7e1a10',
  type: 'SLA_DEGRADED',
  severity: 'P1',
  site: 'access_chez_awa',
  ts: '2025-03-01T12:00:00.000Z',
  acked: false,
  acked_by: null,
  acked_at: null,
  message: '3 canary runs in a row failed (down): radius_auth',
};

let sns: Awaited<ReturnType<typeof fakeSns>>;
const saved = { ...process.env };
beforeAll(async () => {
  sns = await fakeSns();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SNS: sns.url,
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test-secret',
  });
});
afterAll(async () => {
  for (const k of ['AWS_ENDPOINT_URL_SNS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  await sns.close();
});

describe('alerts to the operations topic', () => {
  beforeEach(() => {
    sns.requests.length = 0;
    process.env.OPS_TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:ops';
    resetConfig();
  });
  afterEach(() => {
    delete process.env.OPS_TOPIC_ARN;
    resetConfig();
  });

  it('publishes the alert to the topic with a subject and filterable attributes', async () => {
    await notifyOps(alert, { consecutive_fails: 3 });
    expect(sns.requests).toHaveLength(1);
    const params = Object.fromEntries(sns.requests[0]?.params ?? []);
    expect(params).toMatchObject({
      Action: 'Publish',
      TopicArn: 'arn:aws:sns:eu-west-1:111122223333:ops',
      Subject: '[P1] SLA_DEGRADED access_chez_awa',
      'MessageAttributes.entry.1.Name': 'type',
      'MessageAttributes.entry.1.Value.StringValue': 'SLA_DEGRADED',
      'MessageAttributes.entry.2.Name': 'severity',
      'MessageAttributes.entry.2.Value.StringValue': 'P1',
      'MessageAttributes.entry.3.Name': 'site',
      'MessageAttributes.entry.3.Value.StringValue': 'access_chez_awa',
    });
    expect(JSON.parse(params.Message as string)).toMatchObject({ id: alert.id, consecutive_fails: 3 });
    expect(params.PhoneNumber).toBeUndefined();
  });

  it('lets an SNS refusal reach the caller, by its code', async () => {
    sns.fail({ status: 403, code: 'AuthorizationError' });
    await expect(notifyOps(alert)).rejects.toMatchObject({ name: 'AuthorizationError' });
  });
});

describe('alerts in local mode', () => {
  const outbox = join(tmpdir(), `ops-outbox-${process.pid}-${Date.now()}.jsonl`);
  beforeEach(() => {
    sns.requests.length = 0;
    delete process.env.OPS_TOPIC_ARN;
    process.env.OPS_OUTBOX = outbox;
    resetConfig();
  });
  afterEach(() => {
    delete process.env.OPS_OUTBOX;
    resetConfig();
  });

  it('writes one JSON line to the ops outbox and calls no AWS service', async () => {
    await notifyOps(alert, { consecutive_fails: 3 });
    const lines = readFileSync(outbox, 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({
      id: alert.id,
      site: 'access_chez_awa',
      consecutive_fails: 3,
    });
    expect(sns.requests).toHaveLength(0);
  });
});
