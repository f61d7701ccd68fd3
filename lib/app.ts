// The CDK app: the stack (or a cell's stacks) built from the context, with cdk-nag applied.

import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { HotspotStack, settingsFromContext } from './hotspot-stack.js';

/**
 * The CDK app: the stack, checked by cdk-nag's AWS Solutions rules at synth. Any finding that is
 * not acknowledged with a written reason (lib/nag.ts, applied by the stack) fails the synth.
 */
export function buildApp(props: AppProps = {}): { app: App; stack: HotspotStack } {
  const app = new App(props);
  const settings = settingsFromContext((key) => app.node.tryGetContext(key));
  // The cell's availability zones, where CDK would look them up (and cache them in
  // cdk.context.json): a synth for an account then asks AWS nothing, with no credentials at all.
  if (settings.account && settings.region && settings.availabilityZones)
    app.node.setContext(
      `availability-zones:account=${settings.account}:region=${settings.region}`,
      settings.availabilityZones,
    );
  // One stack a cell: `Hotspot-prod-ci` and `Hotspot-prod-sn` live side by side in an account.
  const name = `Hotspot-${settings.stage}${settings.cell ? `-${settings.cell}` : ''}`;
  const stack = new HotspotStack(app, name, settings, {
    // The cell's own account and region (context, else the CLI's defaults): see lib/settings.ts.
    env: { account: settings.account, region: settings.region },
    description: 'Hotspot reseller platform: API, table, canary, alarms',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
