/**
 * The SDK's SNS client module, loaded when the first message is sent: in the deployed bundles it
 * is a file of its own beside the function (lib/lazy-chunks.ts), and a function that never sends
 * one in a container's life does not even compile it.
 */
export const snsModule = () => import('./sns-client.mjs');
