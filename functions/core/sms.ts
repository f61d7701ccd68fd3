import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SNSClient } from '@aws-sdk/client-sns';
import { clock } from './clock.js';
import { config } from './config.js';
import { snsModule } from './lazy-sns.js';

let sns: SNSClient | undefined;

/**
 * Sends one SMS. In AWS: SNS `Publish` to the phone number, Transactional (delivered ahead of
 * promotional traffic, which OTPs need). Locally: one JSON line in the outbox file, the
 * developer's phone.
 */
export async function sendSms(to: string, message: string): Promise<void> {
  const { SMS_MODE, SMS_OUTBOX, SMS_SENDER_ID } = config();
  if (SMS_MODE === 'outbox') {
    const line = JSON.stringify({ to, message, sent_at: clock.iso() });
    await mkdir(dirname(SMS_OUTBOX), { recursive: true });
    await appendFile(SMS_OUTBOX, `${line}\n`, 'utf8');
    return;
  }
  const { PublishCommand, SNSClient } = await snsModule();
  sns ??= new SNSClient({});
  await sns.send(
    new PublishCommand({
      PhoneNumber: to,
      Message: message,
      MessageAttributes: {
        'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
        'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: SMS_SENDER_ID },
      },
    }),
  );
}

/** Tests swap the SNS client's mock between cases. */
export function resetSms(): void {
  sns = undefined;
}
