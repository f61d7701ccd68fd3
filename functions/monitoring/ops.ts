// Tells operations about a new alert (the operations topic).

import { clock } from '../core/clock.js';
import { appendToOutbox, publish } from '../core/lazy-sns.js';
import type { Alert } from '../store/alerts.js';
import { monitoringSettings } from './settings.js';

/**
 * Tells operations about a new alert. In AWS: SNS Publish to the operations topic (its
 * subscriptions, e-mail or SMS or a pager webhook, are set at deploy), with the alert's type,
 * severity and site as message attributes so a subscription can filter on them. Locally: one
 * JSON line in the ops outbox file, and the console.
 */
export async function notifyOps(alert: Alert, context: Record<string, unknown> = {}): Promise<void> {
  const { OPS_TOPIC_ARN, OPS_OUTBOX } = monitoringSettings();
  const message = { ...alert, ...context };
  if (!OPS_TOPIC_ARN) {
    const line = JSON.stringify({ ...message, sent_at: clock.iso() });
    await appendToOutbox(OPS_OUTBOX, line);
    if (process.env.OPS_ECHO === '1') process.stdout.write(`[ops] ${line}\n`);
    return;
  }
  await publish({
    TopicArn: OPS_TOPIC_ARN,
    // SNS subjects: ASCII, at most 100 characters.
    Subject: `[${alert.severity}] ${alert.type} ${alert.site}`.slice(0, 100),
    Message: JSON.stringify(message, null, 2),
    MessageAttributes: {
      type: { DataType: 'String', StringValue: alert.type },
      severity: { DataType: 'String', StringValue: alert.severity },
      site: { DataType: 'String', StringValue: alert.site },
    },
  });
}
