// The SDK's SNS client as a lazy chunk, loaded by the first message sent.

/**
 * The SDK's SNS client, as a lazy chunk (lib/lazy-chunks.ts): a file of its own beside the
 * bundles of the functions that send an SMS or an alert, loaded by the first message sent
 * (functions/core/lazy-sns.ts), so that their start does not compile it (about 36 KB of each
 * such bundle: SNS's protocol, its XML parser and its error classes).
 */
export { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
