// The DynamoDB client every function shares, made once per container, and the table's name.

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sharedPromise } from './shared-promise.js';

let client: DynamoDBDocumentClient | undefined;
/** The plain client of `itemClient`, and whether the document client was set or instrumented. */
let fast: DynamoDBClient | undefined;
let replaced = false;
let instrumented = false;
/** A middleware of the `initialize` step, as `instrumentDdb` takes it. */
type Middleware = [
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware signature, for any command
  middleware: (next: (args: any) => Promise<any>, context: any) => (args: any) => Promise<any>,
  options: { step: 'initialize'; name: string },
];
/** Middleware added through `instrumentDdb`: on both clients. */
const extras: Middleware[] = [];

/**
 * Every call is bounded so that a frozen DynamoDB answers 503 within the function's 10 s:
 * 1 s to connect (DYNAMODB_CONNECT_TIMEOUT_MS), 2 s for an answer (DYNAMODB_REQUEST_TIMEOUT_MS),
 * 3 attempts with the SDK's back-off (about 7 s at worst). DynamoDB answers in milliseconds; the
 * local Java engine under a test run's load may take seconds to answer, or to accept the dozens
 * of connections a parallel burst opens at once, so the local host and the tests give it more.
 */
function bounds() {
  const requestTimeout = Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? 2000);
  const connectionTimeout = Number(process.env.DYNAMODB_CONNECT_TIMEOUT_MS ?? 1000);
  // The SDK's agent keeps at most 50 sockets and counts a call's wait for one against its
  // connection timeout: a process with more calls in flight than sockets (the RADIUS front's
  // service under a burst, a parallel test) fails the ones that wait. DYNAMODB_MAX_SOCKETS sizes it.
  const agent = { keepAlive: true, maxSockets: Number(process.env.DYNAMODB_MAX_SOCKETS ?? 50) };
  return {
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout,
      requestTimeout,
      throwOnRequestTimeout: true,
      httpAgent: agent,
      httpsAgent: agent,
    },
  };
}

/** The SDK's signer of a call, as its config holds it (`signer(authScheme)`). */
type SignerOf = (scheme?: {
  name?: string;
  signingName?: string;
  signingRegion?: string;
}) => Promise<unknown>;
/** The SDK's user-agent sections (its version, the OS release, Node's version, the service). */
type UserAgentOf = () => Promise<unknown>;

/**
 * What the SDK does again on every call although it depends on nothing the call brings, done
 * once per client instead (docs/radius.md, "CPU per exchange"); every call still goes through
 * the same middleware, signed the same way.
 * - The logger middleware copies every input and output through its sensitive-data filter for
 *   a logger that discards them (no logger is configured): removed. Failures still reach the
 *   caller, which logs them.
 * - The signer: the SDK builds a new SigV4 signer per call (copying the whole config into it),
 *   so its signing-key cache is always empty and each call derives the key again (five HMACs).
 *   One signer per auth scheme is kept; it asks the config's credential provider on every call
 *   as before, and its key cache is keyed on the credentials, day, region and service.
 * - The user agent: the sections every call's `User-Agent` starts with (the SDK's and Node's
 *   versions, the OS release, the Lambda execution environment) are gathered again on every
 *   call, `os.release()` and environment reads included; nothing in them changes while the
 *   process lives, so they are gathered once. The headers sent are the same.
 * - The config object: the SDK adds some fifty properties to it one resolver at a time, and V8
 *   then stores it as a hash table; each call copies it several times (`{ ...config }` in its
 *   serializer, deserializer, endpoint and signer steps), about 9 µs a copy against under 1 µs
 *   from an object with fast properties. V8 gives an object fast properties back once it is a
 *   prototype that a property lookup went through (the old `toFastProperties` idiom): done once
 *   here. Were a V8 release to stop doing it, calls would only cost what they did before.
 */
function lighten<C extends DynamoDBClient>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  const config = client.config as unknown as { signer: SignerOf; defaultUserAgentProvider: UserAgentOf };
  // Each kept once per client; a failure (credentials that cannot be resolved, say) is not kept:
  // the next call tries again.
  const kept = new Map<string, Promise<unknown>>();
  const userAgent = config.defaultUserAgentProvider;
  config.defaultUserAgentProvider = () => sharedPromise(kept, 'user-agent', userAgent);
  const make = config.signer;
  config.signer = (scheme) =>
    sharedPromise(kept, `signer|${scheme?.name}|${scheme?.signingName}|${scheme?.signingRegion}`, () =>
      make(scheme),
    );
  fastProperties(client.config);
  return client;
}

/**
 * Makes V8 store `o`'s properties as fields again (see `lighten`); no effect on what it holds.
 * The lookup has to run through an inline cache, which V8 gives a function only after several
 * calls: hence the repeated calls.
 */
function fastProperties(o: object): void {
  function Probe() {}
  Probe.prototype = o;
  const probe = new (Probe as unknown as new () => object)();
  for (let i = 0; i < 32; i++) lookThrough(probe);
}
const lookThrough = (o: object) => (o as { absent?: unknown }).absent;

function clientConfig() {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  return endpoint
    ? {
        endpoint,
        region: process.env.AWS_REGION ?? 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        ...bounds(),
      }
    : bounds();
}

/**
 * The DynamoDB document client, created once per container. `DYNAMODB_ENDPOINT` points it at
 * DynamoDB Local; in AWS the SDK's defaults apply.
 */
export function ddb(): DynamoDBDocumentClient {
  if (!client) {
    const base = lighten(new DynamoDBClient(clientConfig()));
    const doc = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
    // Middleware a test adds here (a pause, a ledger of writes in the document client's form)
    // is for this client only: `itemClient` then stands aside and sends through it.
    const add = doc.middlewareStack.add.bind(doc.middlewareStack);
    doc.middlewareStack.add = ((...args: Parameters<typeof add>) => {
      instrumented = true;
      return add(...args);
    }) as typeof doc.middlewareStack.add;
    client = doc;
  }
  return client;
}

/**
 * The client of the item commands the store marshals itself (functions/store/entity.ts: reads,
 * writes, transactions): a plain DynamoDB client that resolves its middleware stack once per
 * command kind (`cacheMiddleware`), where the document client resolves it on every call (and
 * cannot cache it). About a fifth less CPU a call (docs/radius.md, "CPU per exchange"). When the
 * document client was replaced (`setDdb`) or given middleware of its own, the commands go
 * through it, so that what the test installed sees them.
 */
export function itemClient(): DynamoDBClient {
  const doc = ddb();
  // A document client sends plain commands as well: they resolve against its stack and config.
  if (replaced || instrumented) return doc as unknown as DynamoDBClient;
  if (!fast) {
    fast = lighten(new DynamoDBClient({ ...clientConfig(), cacheMiddleware: true }));
    for (const [middleware, options] of extras) fast.middlewareStack.add(middleware as never, options);
  }
  return fast;
}

/**
 * Adds a middleware to both clients (the tests' and the bench's call counter and fault
 * injector: functions/store/entity.ts's commands then keep their cached stacks, with it).
 */
export function instrumentDdb(...m: Middleware): void {
  const doc = ddb();
  extras.push(m);
  const wasInstrumented = instrumented;
  doc.middlewareStack.add(m[0] as never, m[1]);
  instrumented = wasInstrumented;
  // Rebuilt with it on the next call (a cached stack would not see it).
  fast?.destroy();
  fast = undefined;
}

/** Replaces the client (tests wrap it with fault-injecting or counting middleware). */
export function setDdb(next: DynamoDBDocumentClient | undefined): void {
  client = next;
  replaced = next !== undefined;
  instrumented = false;
  extras.length = 0;
  fast?.destroy();
  fast = undefined;
}

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}
