// Stands in for the SDK's event streams in the bundles: no function reads one.

/**
 * Stands in for `@smithy/core/event-streams` in the deployed bundles. The SDK's protocols load it
 * with a dynamic `import()` only for operations that stream events (Bedrock, Transcribe, S3
 * Select...); DynamoDB, SNS and the other services these functions call have none. Left in, the
 * dynamic import made esbuild wrap about 150 SDK modules in lazy initialisers (each one parsed
 * twice at start-up) and added 19 KB to every function. If a future call ever needs an event
 * stream, it fails loudly here instead of silently.
 */
const unsupported = (): never => {
  throw new Error('Event streams are not bundled in this function (lib/lambda/no-event-streams.ts)');
};

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}

export const eventStreamSerdeProvider = unsupported;

/**
 * The Lambda client (functions/routers/lambda-client.mts) resolves its event stream marshaller when
 * it is made: it stays unset here. Invoke streams nothing; InvokeWithResponseStream, which no
 * function calls, would fail for want of it.
 */
export const resolveEventStreamSerdeConfig = <T extends object>(
  input: T,
): T & { eventStreamMarshaller: undefined } => Object.assign(input, { eventStreamMarshaller: undefined });
