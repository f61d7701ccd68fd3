// One SMS sent: through SNS in AWS, to the local outbox otherwise.

import { clock } from './clock.js';
import { config } from './config.js';
import { appendToOutbox, publish } from './lazy-sns.js';

/**
 * Sends one SMS. In AWS: SNS `Publish` to the phone number, Transactional (delivered ahead of
 * promotional traffic, which OTPs need). Locally: one JSON line in the outbox file, the
 * developer's phone.
 */
export async function sendSms(to: string, message: string): Promise<void> {
  const { SMS_MODE, SMS_OUTBOX, SMS_SENDER_ID } = config();
  if (SMS_MODE === 'outbox') {
    await appendToOutbox(SMS_OUTBOX, JSON.stringify({ to, message, sent_at: clock.iso() }));
    return;
  }
  await publish({
    PhoneNumber: to,
    Message: message,
    MessageAttributes: {
      'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
      'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: SMS_SENDER_ID },
    },
  });
}
