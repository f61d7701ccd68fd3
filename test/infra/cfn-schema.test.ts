import { loadAwsServiceSpec } from '@aws-cdk/aws-service-spec';
import type { PropertyType, SpecDatabase, TypeDefinition } from '@aws-cdk/service-spec-types';
import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import type { Resource } from './template.js';

/**
 * Every resource of a cell's templates (the main stack and each nested one) checked against the
 * CloudFormation resource schemas, as cfn-lint checks them (E3002 unknown property, E3003 a
 * required one missing, E3012 a value of the wrong type), with the schemas the CDK's own L1
 * classes are generated from: @aws-cdk/aws-service-spec, CloudFormation's registry schemas of
 * each resource type. cfn-lint itself is a Python package with no Debian package (`apt-cache
 * policy cfn-lint`: none); PyPI is not reachable from CI.
 */

const CONTEXT = {
  'aws:cdk:bundling-stacks': [],
  stage: 'prod',
  cell: 'ci',
  opsEmails: ['ops@example.com'],
  domainName: 'api.ci.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:111122223333:certificate/0f0e0d0c-0b0a-0908-0706-050403020100',
  backupCopyVaultArn: 'arn:aws:backup:eu-central-1:111122223333:backup-vault:hotspot-copies',
};

let db: SpecDatabase;
/** Each template of the cell, by its stack's path. */
const templates = new Map<string, Record<string, Resource>>();

beforeAll(async () => {
  db = await loadAwsServiceSpec();
  const { stack } = buildApp({ context: CONTEXT });
  const stacks = [stack, ...stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)];
  for (const s of stacks)
    templates.set(
      s.node.path,
      (Template.fromStack(s).toJSON() as { Resources: Record<string, Resource> }).Resources,
    );
}, 180_000);

/** `{ Ref }`, `{ "Fn::…" }`: resolved by CloudFormation, of whatever type it resolves to. */
const intrinsic = (v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  /^(Ref|Fn::|Condition$)/.test(Object.keys(v)[0] as string);

/** What a value of `type` must be; CloudFormation's own coercions (a number for a string, "true") allowed. */
function problems(value: unknown, type: PropertyType, path: string): string[] {
  if (intrinsic(value)) return [];
  switch (type.type) {
    case 'string':
    case 'date-time':
      return ['string', 'number', 'boolean'].includes(typeof value) ? [] : [`${path}: not a string`];
    case 'number':
    case 'integer':
      return typeof value === 'number' ||
        (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
        ? []
        : [`${path}: not a number`];
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false'
        ? []
        : [`${path}: not a boolean`];
    case 'json':
    case 'null':
      return [];
    case 'tag':
      return typeof value === 'object' && value !== null && 'Key' in value ? [] : [`${path}: not a tag`];
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((v, i) => problems(v, type.element, `${path}[${i}]`))
        : [`${path}: not a list`];
    case 'map':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.entries(value).flatMap(([k, v]) => problems(v, type.element, `${path}.${k}`))
        : [`${path}: not a map`];
    case 'union': {
      const each = type.types.map((t) => problems(value, t, path));
      return each.some((p) => p.length === 0) ? [] : (each[0] ?? []);
    }
    case 'ref': {
      const definition = db.get('typeDefinition', type.reference.$ref) as TypeDefinition;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return [`${path}: not a ${definition.name}`];
      return checkProperties(value as Record<string, unknown>, definition.properties, path);
    }
  }
}

/** Unknown properties, required ones missing, each value's type (its current or a previous one). */
function checkProperties(
  given: Record<string, unknown>,
  schema: Record<string, { type: PropertyType; previousTypes?: PropertyType[]; required?: boolean }>,
  path: string,
): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    const property = schema[name];
    if (!property) {
      out.push(`E3002 ${path}.${name}: no such property`);
      continue;
    }
    const each = [property.type, ...(property.previousTypes ?? [])].map((t) =>
      problems(value, t, `${path}.${name}`),
    );
    if (!each.some((p) => p.length === 0)) out.push(...(each[0] ?? []).map((p) => `E3012 ${p}`));
  }
  for (const [name, property] of Object.entries(schema))
    if (property.required && !(name in given)) out.push(`E3003 ${path}.${name}: required`);
  return out;
}

/** Every finding of every resource of every template. */
function findings(): string[] {
  const out: string[] = [];
  for (const [stackPath, resources] of templates)
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') continue;
      const [resource] = db.lookup('resource', 'cloudFormationType', 'equals', r.Type);
      if (!resource) {
        out.push(`E3001 ${stackPath}/${id}: no resource type ${r.Type}`);
        continue;
      }
      out.push(...checkProperties(r.Properties ?? {}, resource.properties, `${stackPath}/${id}`));
    }
  return out;
}

describe("the cell's templates, against CloudFormation's resource schemas", () => {
  it('have no unknown property, no required one missing and no value of the wrong type', () => {
    const resources = [...templates.values()].reduce((n, r) => n + Object.keys(r).length, 0);
    expect(resources).toBeGreaterThan(500);
    expect(findings()).toEqual([]);
  });

  it("tag the NLB's listeners, the scalable target and the dashboard, which the schemas take (cfn-lint's older ones did not: its E3002)", () => {
    // cfn-lint 1.x reported `Tags` on these five resources as E3002: its bundled schemas
    // predate CloudFormation adding Tags to them; the registry's schemas (this package) and the
    // CDK's L1 classes generated from them have it.
    for (const type of [
      'AWS::ElasticLoadBalancingV2::Listener',
      'AWS::ApplicationAutoScaling::ScalableTarget',
      'AWS::CloudWatch::Dashboard',
    ]) {
      const [resource] = db.lookup('resource', 'cloudFormationType', 'equals', type);
      expect(resource?.tagInformation?.tagPropertyName, type).toBe('Tags');
    }
    const tagged = [...templates.values()]
      .flatMap((r) => Object.values(r))
      .filter((r) =>
        [
          'AWS::ElasticLoadBalancingV2::Listener',
          'AWS::ApplicationAutoScaling::ScalableTarget',
          'AWS::CloudWatch::Dashboard',
        ].includes(r.Type),
      )
      .filter((r) => JSON.stringify(r.Properties.Tags ?? []).includes('hotspot:cell'));
    expect(tagged.length).toBeGreaterThanOrEqual(5);
  });

  it('give every target tracking policy one metric specification: one metric, or metric math, never both', () => {
    // CustomizedMetricSpecification holds either a single metric (MetricName, Namespace,
    // Dimensions, Statistic, Unit) or metric math (Metrics): the API reference lists both as
    // optional fields of one type
    // (https://docs.aws.amazon.com/autoscaling/application/APIReference/API_CustomizedMetricSpecification.html)
    // and the metric-math guide builds a policy with Metrics alone
    // (https://docs.aws.amazon.com/autoscaling/application/userguide/application-auto-scaling-target-tracking-metric-math.html).
    // Given both, which one the service tracks is not said: the policy carries one.
    const [policyType] = db.lookup(
      'resource',
      'cloudFormationType',
      'equals',
      'AWS::ApplicationAutoScaling::ScalingPolicy',
    );
    expect(policyType).toBeDefined();
    const single = ['MetricName', 'Namespace', 'Dimensions', 'Statistic', 'Unit'];
    const specs = [...templates.values()]
      .flatMap((r) => Object.values(r))
      .filter((r) => r.Type === 'AWS::ApplicationAutoScaling::ScalingPolicy')
      .map(
        (r) =>
          (
            r.Properties.TargetTrackingScalingPolicyConfiguration as {
              CustomizedMetricSpecification?: Record<string, unknown>;
            }
          )?.CustomizedMetricSpecification,
      )
      .filter((s): s is Record<string, unknown> => s !== undefined);
    expect(specs).toHaveLength(1);
    for (const spec of specs) {
      const math = 'Metrics' in spec;
      const one = single.some((k) => k in spec);
      expect(math !== one, JSON.stringify(Object.keys(spec))).toBe(true);
      if (math) {
        const metrics = spec.Metrics as {
          Id: string;
          Expression?: string;
          MetricStat?: unknown;
          ReturnData?: boolean;
        }[];
        // Each query is an expression or a metric, exactly one returns the data.
        for (const m of metrics) expect(Boolean(m.Expression) !== Boolean(m.MetricStat), m.Id).toBe(true);
        expect(metrics.filter((m) => m.ReturnData !== false)).toHaveLength(1);
      }
    }
  });

  it('finds a property the schema does not have, a value of the wrong type and a required one missing (the check can fail)', () => {
    const [listener] = db.lookup(
      'resource',
      'cloudFormationType',
      'equals',
      'AWS::ElasticLoadBalancingV2::Listener',
    );
    expect(
      checkProperties(
        { LoadBalancerArn: { Ref: 'Nlb' }, Port: 'udp', Protocol: 'UDP', Colour: 'blue' },
        listener?.properties ?? {},
        'Listener',
      ),
    ).toEqual([
      'E3012 Listener.Port: not a number',
      'E3002 Listener.Colour: no such property',
      'E3003 Listener.DefaultActions: required',
    ]);
  });
});
