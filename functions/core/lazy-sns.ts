// SNS messages published with the SDK's client loaded by the first one, or written to a local outbox.

import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';

/**
 * The SDK's SNS client module, loaded when the first message is sent: in the deployed bundles it
 * is a file of its own beside the function (lib/lazy-chunks.ts), and a function that never sends
 * one in a container's life does not even compile it.
 */
export const snsModule = () => import('./sns-client.mjs');

let sns: SNSClient | undefined;

/** Publishes one SNS message (an SMS, an operations notice); the client is made by the first. */
export async function publish(input: PublishCommandInput): Promise<void> {
  const { PublishCommand, SNSClient } = await snsModule();
  sns ??= new SNSClient({});
  await sns.send(new PublishCommand(input));
}

/** Locally, what SNS would carry: one JSON line appended to an outbox file. */
export async function appendToOutbox(file: string, line: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${line}\n`, 'utf8');
}

/** Tests swap the SNS client's mock between cases. */
export function resetSns(): void {
  sns = undefined;
}
