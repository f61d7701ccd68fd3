// The SDK's Lambda client as a lazy chunk, loaded by the first call to the router keys function.

/**
 * The SDK's Lambda client, as a lazy chunk (lib/lazy-chunks.ts): a file of its own beside the
 * bundles of the functions that ask the router keys function (functions/routers/keys-client.ts),
 * loaded by their first call, so that their start does not compile it.
 */
export { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
