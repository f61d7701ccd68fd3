import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { getSecret, resetSecrets } from '../../functions/core/secrets.js';
import { resetSms, sendSms } from '../../functions/core/sms.js';

describe('SMS through SNS', () => {
  const sns = mockClient(SNSClient);
  beforeEach(() => {
    sns.reset();
    resetSms();
    process.env.SMS_MODE = 'sns';
    process.env.TABLE_NAME = 'unused';
    resetConfig();
  });
  afterEach(() => {
    process.env.SMS_MODE = 'outbox';
    resetConfig();
  });

  it('publishes a Transactional SMS to the phone number', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    await sendSms('+2250712345678', 'Votre code est 123456');
    const calls = sns.commandCalls(PublishCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toMatchObject({
      PhoneNumber: '+2250712345678',
      Message: 'Votre code est 123456',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('lets an SNS failure reach the caller', async () => {
    sns.on(PublishCommand).rejects(new Error('throttled'));
    await expect(sendSms('+2250712345678', 'x')).rejects.toThrow('throttled');
  });
});

describe('secrets from Secrets Manager', () => {
  const sm = mockClient(SecretsManagerClient);
  const saved = process.env.OTP_PEPPER;
  beforeEach(() => {
    sm.reset();
    resetSecrets();
    delete process.env.OTP_PEPPER;
    process.env.OTP_PEPPER_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:pepper';
  });
  afterEach(() => {
    process.env.OTP_PEPPER = saved;
    delete process.env.OTP_PEPPER_ARN;
    resetSecrets();
  });

  it('reads a secret once per container, however many requests need it', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'from-sm' });
    const values = await Promise.all([
      getSecret('OTP_PEPPER'),
      getSecret('OTP_PEPPER'),
      getSecret('OTP_PEPPER'),
    ]);
    expect(values).toEqual(['from-sm', 'from-sm', 'from-sm']);
    expect(await getSecret('OTP_PEPPER')).toBe('from-sm');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(sm.commandCalls(GetSecretValueCommand)[0]?.args[0].input.SecretId).toBe(
      process.env.OTP_PEPPER_ARN,
    );
  });

  it('tries again after a failed read instead of caching the failure', async () => {
    sm.on(GetSecretValueCommand).rejectsOnce(new Error('network')).resolves({ SecretString: 'second' });
    await expect(getSecret('OTP_PEPPER')).rejects.toThrow('network');
    expect(await getSecret('OTP_PEPPER')).toBe('second');
  });

  it('fails clearly when a secret is not configured', async () => {
    delete process.env.OTP_PEPPER_ARN;
    await expect(getSecret('OTP_PEPPER')).rejects.toThrow('Secret OTP_PEPPER is not configured');
  });
});
