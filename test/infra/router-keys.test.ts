import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';
import { actionsOf, apiTemplate, inspect } from './template.js';

// The secrets that open routers (ROUTER_SEAL_KEY: every UDP router's secret) and sign their
// certificates (ROUTER_CA_KEY) are read by no function with a public route: the router keys
// function (functions/routers/router-keys.ts), which has no route and no URL, is the one that
// reads them, and only the functions whose row asks for `routerKeys` may invoke it.

const OPENING = ['ROUTER_SEAL_KEY', 'ROUTER_CA_KEY'];

let t: ReturnType<typeof inspect>;
beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], stage: 'test' } });
  const stack = new HotspotStack(
    app,
    'Keys',
    settingsFromContext((k) => app.node.tryGetContext(k)),
  );
  t = inspect(apiTemplate(stack) as Template);
}, 180_000);

/** A secret's name by its logical id (its description starts with the name). */
const secretNames = () =>
  new Map(
    t
      .ofType('AWS::SecretsManager::Secret')
      .map(([id, s]) => [id, String(s.Properties.Description).split(':')[0]]),
  );

/** The secrets a function's role may read, by name. */
function readable(fnId: string): string[] {
  const names = secretNames();
  return t
    .statementsOfFunction(fnId)
    .filter((st) => st.Effect === 'Allow' && actionsOf(st).includes('secretsmanager:GetSecretValue'))
    .flatMap((st) => [st.Resource].flat())
    .map((r) => names.get((r as { Ref?: string }).Ref ?? '') ?? JSON.stringify(r))
    .sort();
}

/** The functions reached from the internet: an API Gateway route's integration, or a function URL. */
function publicFunctions(): Map<string, string> {
  const byId = new Map<string, string>();
  const fnIdOf = (v: unknown) => JSON.stringify(v).match(/"([A-Za-z0-9]+Fn[A-Z0-9][A-Za-z0-9]*)"/)?.[1];
  for (const [, integration] of t.ofType('AWS::ApiGatewayV2::Integration')) {
    const id = fnIdOf(integration.Properties.IntegrationUri);
    if (id) byId.set(id, String(t.resources[id]?.Properties.Description).split(':')[0] as string);
  }
  for (const [, url] of t.ofType('AWS::Lambda::Url')) {
    const id = fnIdOf(url.Properties.TargetFunctionArn);
    if (id) byId.set(id, String(t.resources[id]?.Properties.Description).split(':')[0] as string);
  }
  return byId;
}

describe('the keys that open routers and sign their certificates', () => {
  it('are readable by no function with a public route: each one listed with the secrets its role can read', () => {
    const listed = [...publicFunctions()].map(([id, key]) => ({ key, secrets: readable(id) }));
    // Every API route and function URL is there (the RADIUS data plane's rows run in the front).
    const expected = routes.filter((r) => r.plane !== 'front').map(routeKey);
    expect(listed.map((l) => l.key).sort()).toEqual([...expected].sort());
    const exposed = listed.filter((l) => l.secrets.some((s) => OPENING.includes(s)));
    expect(exposed).toEqual([]);
    // The list is not empty of secrets: the session key, the gateways' keys are read where needed.
    expect(listed.find((l) => l.key === 'POST /api/v1/routers')?.secrets).toEqual(['JWT_SECRET']);
  });

  it('are read by the router keys function alone, which no route, URL or permission exposes', () => {
    const readers = t
      .ofType('AWS::Lambda::Function')
      .filter(([id]) => readable(id).some((s) => OPENING.includes(s)))
      .map(([, f]) => String(f.Properties.Description).split(':')[0]);
    expect(readers).toEqual(['RouterKeys']);
    const keysId = t.functionIdOf('RouterKeys');
    expect(readable(keysId)).toEqual(['ROUTER_CA_KEY', 'ROUTER_SEAL_KEY']);
    expect(publicFunctions().has(keysId)).toBe(false);
    // No resource policy lets any service (API Gateway, a URL) invoke it.
    expect(
      t
        .ofType('AWS::Lambda::Permission')
        .filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(keysId)),
    ).toEqual([]);
  });

  it("may be asked for by exactly the functions whose row says `routerKeys`, each told the function's name", () => {
    const keysId = t.functionIdOf('RouterKeys');
    const invokers = t
      .ofType('AWS::Lambda::Function')
      .filter(([id]) =>
        t
          .statementsOfFunction(id)
          .some(
            (st) =>
              actionsOf(st).includes('lambda:InvokeFunction') && JSON.stringify(st.Resource).includes(keysId),
          ),
      )
      .map(([, f]) => String(f.Properties.Description).split(':')[0])
      .sort();
    const asking = routes.filter((r) => r.access.routerKeys).map(routeKey);
    expect(asking.sort()).toEqual([
      'POST /api/v1/edge/radius/client',
      'POST /api/v1/edge/replica',
      'POST /api/v1/resellers',
      'POST /api/v1/routers',
      'POST /api/v1/routers/{router_id}/credentials',
    ]);
    expect(invokers).toEqual(asking);
    for (const key of asking) expect(t.envOf(key).ROUTER_KEYS_FUNCTION, key).toEqual({ Ref: keysId });
    // The function itself, never `*` nor its versions.
    for (const key of asking) {
      const resources = t
        .statementsOf(key)
        .filter((st) => actionsOf(st).includes('lambda:InvokeFunction'))
        .flatMap((st) => [st.Resource].flat());
      expect(resources, key).toEqual([{ 'Fn::GetAtt': [keysId, 'Arn'] }]);
    }
  });
});
