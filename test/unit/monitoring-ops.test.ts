import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { resetSns } from '../../functions/core/lazy-sns.js';
import { notifyOps } from '../../functions/monitoring/ops.js';
import type { Alert } from '../../functions/store/alerts.js';

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

describe('alerts to the operations topic', () => {
  const sns = mockClient(SNSClient);
  beforeEach(() => {
    sns.reset();
    resetSns();
    process.env.OPS_TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:ops';
    resetConfig();
  });
  afterEach(() => {
    delete process.env.OPS_TOPIC_ARN;
    resetConfig();
  });

  it('publishes the alert to the topic with a subject and filterable attributes', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    await notifyOps(alert, { consecutive_fails: 3 });
    const calls = sns.commandCalls(PublishCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input).toMatchObject({
      TopicArn: 'arn:aws:sns:eu-west-1:111122223333:ops',
      Subject: '[P1] SLA_DEGRADED access_chez_awa',
      MessageAttributes: {
        type: { DataType: 'String', StringValue: 'SLA_DEGRADED' },
        severity: { DataType: 'String', StringValue: 'P1' },
        site: { DataType: 'String', StringValue: 'access_chez_awa' },
      },
    });
    expect(JSON.parse(input?.Message as string)).toMatchObject({ id: alert.id, consecutive_fails: 3 });
    expect(input?.PhoneNumber).toBeUndefined();
  });

  it('lets an SNS failure reach the caller', async () => {
    sns.on(PublishCommand).rejects(new Error('throttled'));
    await expect(notifyOps(alert)).rejects.toThrow('throttled');
  });
});

describe('alerts in local mode', () => {
  const sns = mockClient(SNSClient);
  const outbox = join(tmpdir(), `ops-outbox-${process.pid}-${Date.now()}.jsonl`);
  beforeEach(() => {
    sns.reset();
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
    expect(sns.commandCalls(PublishCommand)).toHaveLength(0);
  });
});
