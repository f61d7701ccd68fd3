import { App, type PolicyViolation, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../functions/jobs.js';
import { routeKey, routes } from '../../functions/routes.js';
import { buildApp } from '../../lib/app.js';
import {
  SMS_PUBLISH_ACKNOWLEDGEMENT,
  STREAM_LIST_ACKNOWLEDGEMENT,
  stackAcknowledgements,
} from '../../lib/nag.js';

const noBundling = { context: { 'aws:cdk:bundling-stacks': [] } };

interface NagOutcome {
  /** Every unacknowledged finding, as `rule (severity) at path`. */
  findings: string[];
  violations: PolicyViolation[];
  /** What the synth threw (the CDK fails it on any finding of a validation plugin), if anything. */
  synthError?: string;
}

/**
 * Runs cdk-nag's AwsSolutions pack over an app and synthesizes it. cdk-nag 3 is a validation
 * plugin: `validateScope` gives its report (errors and warnings alike, acknowledged ones left
 * out), and the synth itself throws on the same report when the app registered the plugin.
 */
function nag(app: App): NagOutcome {
  const { violations } = new AwsSolutionsChecks().validateScope(app);
  const findings = violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.ruleName} (${v.severity}) at ${r.constructPath}`),
  );
  let synthError: string | undefined;
  try {
    app.synth();
  } catch (e) {
    synthError = (e as Error).message;
  }
  return { findings, violations, ...(synthError ? { synthError } : {}) };
}

/** Paths of the constructs that acknowledge a rule id. */
function acknowledgedAt(root: IConstruct, id: string): string[] {
  return root.node
    .findAll()
    .filter((c) =>
      c.node.metadata.some(
        (m) =>
          m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY &&
          Object.keys(m.data as object).some((k) => k.endsWith(`::${id}`)),
      ),
    )
    .map((c) => c.node.path);
}

describe('cdk-nag AwsSolutions on the app', () => {
  let app: App;
  let stackPath: string;
  let built: ReturnType<typeof buildApp>;
  let outcome: NagOutcome;
  beforeAll(() => {
    built = buildApp(noBundling);
    app = built.app;
    stackPath = built.stack.node.path;
    outcome = nag(app);
  });

  it('finds nothing unacknowledged, neither error nor warning', () => {
    expect(outcome.findings).toEqual([]);
  });

  it('synthesizes with the checks registered', () => {
    expect(outcome.synthError).toBeUndefined();
  });

  it('acknowledges a Resource * on the role of the sms rows and jobs, of the stream consumers and the RADIUS front task execution role only, not on the stack', () => {
    const smsRows = routes.filter((r) => r.access.sns === 'sms');
    // A scheduled job that completes payments texts access codes too (reconciliation).
    const smsJobs = jobs.filter((j) => j.access.sns === 'sms');
    expect(acknowledgedAt(app, SMS_PUBLISH_ACKNOWLEDGEMENT.id).sort()).toEqual(
      [
        // The roles of the sms access profiles (one per set of secrets), nothing else of the API.
        ...new Set(
          [
            ...smsRows.map((r) => built.stack.functions[routeKey(r)]),
            ...smsJobs.map((j) => built.stack.jobFunctions[j.name]),
          ].map((fn) => fn?.role?.node.path),
        ),
        // dynamodb:ListStreams (lib/nag.ts, STREAM_LIST_ACKNOWLEDGEMENT).
        ...Object.values(built.stack.streamConsumers).map((c) => c.fn.role?.node.path),
        // ecr:GetAuthorizationToken (lib/radius-front.ts).
        `${stackPath}/RadiusFront/Front/Task/ExecutionRole`,
      ].sort(),
    );
  });

  it('gives a written reason for every acknowledgement', () => {
    for (const a of [
      ...stackAcknowledgements('TableX'),
      SMS_PUBLISH_ACKNOWLEDGEMENT,
      STREAM_LIST_ACKNOWLEDGEMENT,
    ]) {
      expect(a.reason.length, a.id).toBeGreaterThan(60);
    }
  });
});

describe('the collection of findings (a deliberately broken stack)', () => {
  let outcome: NagOutcome;
  beforeAll(() => {
    const app = new App(noBundling);
    const stack = new Stack(app, 'Broken');
    new Topic(stack, 'TopicWithoutTls'); // AwsSolutions-SNS3, an error
    new Table(stack, 'TableWithoutPitr', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    }); // AwsSolutions-DDB3, a warning
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    outcome = nag(app);
  });

  it('collects an error-level finding', () => {
    expect(outcome.violations).toContainEqual(
      expect.objectContaining({ ruleName: 'AwsSolutions-SNS3', severity: 'error' }),
    );
    expect(outcome.findings).toContain('AwsSolutions-SNS3 (error) at Broken/TopicWithoutTls/Resource');
  });

  it('collects a warning-level finding too', () => {
    expect(outcome.violations).toContainEqual(
      expect.objectContaining({ ruleName: 'AwsSolutions-DDB3', severity: 'warning' }),
    );
  });

  it('fails the synth on them', () => {
    expect(outcome.synthError).toMatch(/AwsSolutions-SNS3/);
    expect(outcome.synthError).toMatch(/AwsSolutions-DDB3/);
  });
});
