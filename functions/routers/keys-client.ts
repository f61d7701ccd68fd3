// How the public functions ask the router keys function (in AWS) or the same code in process (locally).

import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { KeysAnswer, KeysCall, RouterCertificate } from './router-keys.js';

/**
 * How the public functions use the router keys without reading them (functions/routers/router-keys.ts).
 * In AWS, ROUTER_KEYS_FUNCTION names the function they invoke (the stack sets it, and lets only
 * them invoke it); locally and in tests, with no such function, the same code answers in this
 * process with the keys of the environment, as every other secret is read there.
 *
 * A failed invocation (throttled, unreachable, the function failing) is a `SecretsUnavailable`
 * error: a retryable 503 (functions/core/errors.ts), as a secret that cannot be read is.
 */
export interface RouterKeys {
  /** The sealed form of a new UDP secret of this router. */
  seal(routerId: string, secret: string): Promise<string>;
  /** A new RadSec client certificate for this router. */
  certificate(routerId: string): Promise<RouterCertificate>;
  /** The opened secrets of the active UDP routers of the edge whose token this is (empty: refused). */
  edgeSecrets(authorization: string): Promise<Record<string, string>>;
  /** The edge's client definition at a source address: its resellers' UDP router there, opened. */
  edgeClient(authorization: string, sourceIp: string): Promise<Record<string, unknown> | undefined>;
}

class KeysUnavailable extends Error {
  // The name errors.ts counts as a dependency down (503, retry), as an unreadable secret.
  override readonly name = 'SecretsUnavailable';
}

let lambda: LambdaClient | undefined;

/** A deployed route's own row (lib/bundling.ts `routeDefine`): set in its bundle only. */
declare const HOTSPOT_ROUTE: string | undefined;

/** One call, answered by the function (AWS) or in this process (locally). */
async function call(request: KeysCall): Promise<KeysAnswer> {
  const functionName = process.env.ROUTER_KEYS_FUNCTION;
  // Locally only: a deployed route's bundle has its row defined, so esbuild drops this branch,
  // and with it the keys' code, from every public function.
  if (typeof HOTSPOT_ROUTE !== 'string' && !functionName)
    return (await import('./router-keys.js')).answerKeys(request);
  if (!functionName) throw new Error('ROUTER_KEYS_FUNCTION is not set');
  const { InvokeCommand, LambdaClient } = await import('./lambda-client.mjs');
  lambda ??= new LambdaClient({ maxAttempts: 2 });
  let answer: { FunctionError?: string; Payload?: Uint8Array };
  try {
    answer = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        Payload: new TextEncoder().encode(JSON.stringify(request)),
      }),
    );
  } catch (error) {
    throw new KeysUnavailable(`router keys: ${request.op} not answered`, { cause: error });
  }
  if (answer.FunctionError || !answer.Payload)
    throw new KeysUnavailable(`router keys: ${request.op} failed (${answer.FunctionError ?? 'no answer'})`);
  return JSON.parse(new TextDecoder().decode(answer.Payload)) as KeysAnswer;
}

const field = <K extends string>(answer: KeysAnswer, key: K): unknown =>
  (answer as Record<string, unknown>)[key];

export const routerKeys: RouterKeys = {
  async seal(routerId, secret) {
    return field(await call({ op: 'seal', router_id: routerId, secret }), 'secret_box') as string;
  },
  async certificate(routerId) {
    return (await call({ op: 'certificate', router_id: routerId })) as RouterCertificate;
  },
  async edgeSecrets(authorization) {
    return (field(await call({ op: 'edge-secrets', authorization }), 'secrets') ?? {}) as Record<
      string,
      string
    >;
  },
  async edgeClient(authorization, sourceIp) {
    const client = field(await call({ op: 'edge-client', authorization, source_ip: sourceIp }), 'client');
    return (client ?? undefined) as Record<string, unknown> | undefined;
  },
};

/** Tests swap the Lambda client's mock between cases. */
export function resetRouterKeys(): void {
  lambda = undefined;
}
