import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';

/**
 * The CORS decision (docs/decisions.md, "Hardening"): the captive portal and the dashboards are
 * served from the API's origin, so no origin is granted anywhere: no `corsPreflight` on the HTTP
 * API, no `cors` on a function URL. The local server sends no CORS header either
 * (test/http/hardening.test.ts).
 */
describe('CORS', () => {
  it('grants no origin: no CORS configuration on the HTTP API nor on any function URL', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], stage: 'test' } });
    const stack = new HotspotStack(
      app,
      'Cors',
      settingsFromContext((k) => app.node.tryGetContext(k)),
    );
    const resources = Object.values(
      (
        Template.fromStack(stack).toJSON() as {
          Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
        }
      ).Resources,
    );
    const apis = resources.filter((r) => r.Type === 'AWS::ApiGatewayV2::Api');
    expect(apis.length).toBeGreaterThan(0);
    for (const api of apis) expect(api.Properties?.CorsConfiguration).toBeUndefined();
    const urls = resources.filter((r) => r.Type === 'AWS::Lambda::Url');
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.Properties?.Cors).toBeUndefined();
    // Synthesizing the whole stack takes a while on a busy machine.
  }, 120_000);
});
