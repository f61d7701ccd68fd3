import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { HotspotStack, settingsFromContext } from './hotspot-stack.js';
import { acknowledgeNagFindings } from './nag.js';

/** The CDK app: the stack, checked by cdk-nag's AWS Solutions rules with the written acknowledgements. */
export function buildApp(props: AppProps = {}): { app: App; stack: HotspotStack } {
  const app = new App(props);
  const settings = settingsFromContext((key) => app.node.tryGetContext(key));
  const stack = new HotspotStack(app, `Hotspot-${settings.stage}`, settings, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Hotspot reseller platform: API, table, canary, alarms',
  });
  acknowledgeNagFindings(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
