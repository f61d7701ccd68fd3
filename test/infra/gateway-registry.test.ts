import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cinetpay } from '../../functions/billing/gateways/cinetpay.js';
import { fedapay } from '../../functions/billing/gateways/fedapay.js';
import { http } from '../../functions/billing/gateways/http.js';
import { sandbox } from '../../functions/billing/gateways/sandbox.js';
import { wave } from '../../functions/billing/gateways/wave.js';

/**
 * The gateway registry (functions/billing/gateways/registry.ts) drives the route and job
 * grants, the Secrets Manager secrets, the `paymentGateway` check and the notify route: a
 * gateway added there (here: a test gateway beside the sandbox, as docs/conventions.md shows)
 * reaches all of them without another file being touched.
 */
const CONTEXT = { 'aws:cdk:bundling-stacks': [], stage: 'test', opsEmails: ['ops@example.com'] };

/** The registry with one more gateway, `testpay`, declared like the sandbox plus a secret. */
async function withTestGateway() {
  vi.resetModules();
  vi.doMock('../../functions/billing/gateways/registry.js', async (importOriginal) => {
    const real = await importOriginal<typeof import('../../functions/billing/gateways/registry.js')>();
    const names = [...real.GATEWAY_NAMES, 'testpay'];
    return {
      ...real,
      GATEWAY_NAMES: names,
      PAYMENT_SECRETS: [...real.PAYMENT_SECRETS, 'TESTPAY_API_KEY'],
      gatewayNamed: (n: string | undefined) => (n !== undefined && names.includes(n) ? n : undefined),
    };
  });
}

async function synth(context: Record<string, unknown> = {}) {
  const { HotspotStack, settingsFromContext } = await import('../../lib/hotspot-stack.js');
  const app = new App({ context: { ...CONTEXT, ...context } });
  const stack = new HotspotStack(
    app,
    'Registry',
    settingsFromContext((k) => app.node.tryGetContext(k)),
  );
  return Template.fromStack(stack).toJSON() as {
    Resources: Record<
      string,
      {
        Type: string;
        Properties: { Description?: string; Environment?: { Variables?: Record<string, string> } };
      }
    >;
  };
}

const functionsNaming = (t: Awaited<ReturnType<typeof synth>>, secret: string) =>
  Object.values(t.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .filter((r) => `${secret}_ARN` in (r.Properties.Environment?.Variables ?? {}))
    .map((r) => String(r.Properties.Description).split(':')[0]);

afterEach(() => {
  vi.doUnmock('../../functions/billing/gateways/registry.js');
  vi.resetModules();
});

// A synth takes seconds alone and much more on a loaded machine.
describe('the gateway registry drives the stack', { timeout: 180_000 }, () => {
  it('gives every payments route and job, and only those, each registered gateway secret', async () => {
    const { PAYMENT_SECRETS, GATEWAY_NAMES } = await import('../../functions/billing/gateways/registry.js');
    const declared = [sandbox, http, cinetpay, fedapay, wave];
    expect([...GATEWAY_NAMES].sort()).toEqual(declared.map((g) => g.name).sort());
    expect([...PAYMENT_SECRETS].sort()).toEqual(
      [...new Set(declared.flatMap((g): readonly string[] => g.secrets))].sort(),
    );
    const t = await synth();
    const { routes, routeKey } = await import('../../functions/routes.js');
    const payments = routes.filter((r) => 'payments' in r.access).map(routeKey);
    expect(payments.length).toBeGreaterThanOrEqual(4);
    for (const secret of PAYMENT_SECRETS) {
      expect(functionsNaming(t, secret).sort(), secret).toEqual(
        [...payments, 'PaymentReconciliation'].sort(),
      );
    }
  });

  it('creates the secret, grants it and accepts the name of a gateway added to the registry alone', async () => {
    await withTestGateway();
    const t = await synth({ paymentGateway: 'testpay' });
    const secrets = Object.values(t.Resources).filter((r) => r.Type === 'AWS::SecretsManager::Secret');
    expect(secrets.some((s) => String(s.Properties.Description).startsWith('TESTPAY_API_KEY:'))).toBe(true);
    expect(functionsNaming(t, 'TESTPAY_API_KEY')).toContain('POST /api/v1/payments/notify/{provider}');
    expect(functionsNaming(t, 'TESTPAY_API_KEY')).toContain('PaymentReconciliation');
  });

  it('fails the synth for a gateway name the registry does not have', async () => {
    await expect(synth({ paymentGateway: 'testpay' })).rejects.toThrow(
      /paymentGateway.*sandbox, http, cinetpay, fedapay/,
    );
    await expect(synth({ paymentProvider: 'nope' })).rejects.toThrow(/paymentProvider/);
  });
});
