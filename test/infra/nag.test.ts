import { App, Stack, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import { NAG_ACKNOWLEDGEMENTS } from '../../lib/nag.js';

const noBundling = { context: { 'aws:cdk:bundling-stacks': [] } };

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the app', () => {
    const { app } = buildApp(noBundling);
    expect(() => app.synth()).not.toThrow();
  });

  it('fails the synth on a finding (the check is live)', () => {
    const app = new App({ ...noBundling, outdir: undefined });
    const stack = new Stack(app, 'Bad');
    new Topic(stack, 'TopicWithoutTls');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SNS3/);
  });

  it('gives a written reason for every acknowledgement', () => {
    for (const a of NAG_ACKNOWLEDGEMENTS) expect(a.reason.length, a.id).toBeGreaterThan(40);
  });
});
