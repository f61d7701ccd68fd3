import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type NestedStack, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';
import { inspect } from './template.js';

// The RADIUS front of the stack (lib/radius-front.ts), synthesized offline: the image is only
// staged here (its Dockerfile and the configuration), built at deploy.

let app: App;
/** The front's own (nested) stack, and the stack it deploys with. */
let template: Template;
let t: ReturnType<typeof inspect>;
let parent: ReturnType<typeof inspect>;

beforeAll(() => {
  app = new App({ context: { 'aws:cdk:bundling-stacks': [], stage: 'test' } });
  const stack = new HotspotStack(
    app,
    'Front',
    settingsFromContext((k) => app.node.tryGetContext(k)),
  );
  template = Template.fromStack(Stack.of(stack.radiusFront) as NestedStack);
  t = inspect(template);
  parent = inspect(Template.fromStack(stack));
});

/** The parent's value for a parameter of the nested stack given as `{ Ref: name }`. */
const parameterValue = (ref: unknown): unknown => {
  const name = (ref as { Ref: string }).Ref;
  const nested = parent.ofType('AWS::CloudFormation::Stack');
  expect(nested).toHaveLength(1);
  return (nested[0]?.[1].Properties.Parameters as Record<string, unknown> | undefined)?.[name];
};

/** The front's Elastic IPs (the NAT gateway has one of its own). */
const frontAddresses = () =>
  t
    .ofType('AWS::EC2::EIP')
    .filter(([, e]) => JSON.stringify(e.Properties.Tags ?? []).includes('radius-front-'))
    .map(([id]) => id);

describe('the RADIUS front', () => {
  it('is an internet-facing NLB whose address in each AZ is an Elastic IP of the stack', () => {
    const eips = frontAddresses();
    expect(eips).toHaveLength(2);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Type: 'network',
      Scheme: 'internet-facing',
      SubnetMappings: eips.map((id) => ({
        AllocationId: { 'Fn::GetAtt': [id, 'AllocationId'] },
        SubnetId: Match.anyValue(),
      })),
    });
  });

  it('listens on UDP 1812 and 1813 and TCP 2083 (RadSec passed through to FreeRADIUS)', () => {
    const listeners = t
      .ofType('AWS::ElasticLoadBalancingV2::Listener')
      .map(([, l]) => [l.Properties.Port, l.Properties.Protocol]);
    expect(listeners.sort()).toEqual([
      [1812, 'UDP'],
      [1813, 'UDP'],
      [2083, 'TCP'],
    ]);
  });

  it('checks every target over TCP on 2083 (an NLB cannot check UDP) and ends UDP flows of a deregistered task', () => {
    const groups = t.ofType('AWS::ElasticLoadBalancingV2::TargetGroup').map(([, g]) => g.Properties);
    expect(groups).toHaveLength(3);
    for (const g of groups) {
      expect(g).toMatchObject({ TargetType: 'ip', HealthCheckProtocol: 'TCP', HealthCheckPort: '2083' });
      expect(g.TargetGroupAttributes).toEqual(
        expect.arrayContaining([
          { Key: 'deregistration_delay.connection_termination.enabled', Value: 'true' },
        ]),
      );
    }
    expect(groups.map((g) => g.Protocol).sort()).toEqual(['TCP', 'UDP', 'UDP']);
    // RadSec keeps the router's address (the hotspot's, which the SMS budgets raise).
    const radsec = groups.find((g) => g.Protocol === 'TCP');
    expect(radsec?.TargetGroupAttributes).toEqual(
      expect.arrayContaining([{ Key: 'preserve_client_ip.enabled', Value: 'true' }]),
    );
  });

  it('runs FreeRADIUS on Fargate in private subnets, with the bearer secret from Secrets Manager and logs in CloudWatch', () => {
    const secretId = parent
      .ofType('AWS::SecretsManager::Secret')
      .find(([, s]) => String(s.Properties.Description).startsWith('RADIUS_API_SECRET:'))?.[0] as string;
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      DesiredCount: 2,
      NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: 'DISABLED' } },
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      ContainerDefinitions: [
        Match.objectLike({
          Secrets: [{ Name: 'RADIUS_API_SECRET', ValueFrom: Match.anyValue() }],
          LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }),
          PortMappings: [
            { ContainerPort: 1812, Protocol: 'udp' },
            { ContainerPort: 1813, Protocol: 'udp' },
            { ContainerPort: 2083, Protocol: 'tcp' },
          ],
          Environment: Match.arrayWith([
            { Name: 'RADIUS_CLIENT_IPADDR', Value: '0.0.0.0/0' },
            { Name: 'RADIUS_CLIENT_LIFETIME', Value: '60' },
          ]),
        }),
      ],
    });
    const containers = t.ofType('AWS::ECS::TaskDefinition')[0]?.[1].Properties.ContainerDefinitions as {
      Secrets: { ValueFrom: unknown }[];
    }[];
    expect(parameterValue(containers[0]?.Secrets[0]?.ValueFrom)).toEqual({ Ref: secretId });
    const env = JSON.stringify(containers);
    expect(env).not.toMatch(/RADIUS_SECRET|testing123/);
  });

  it('scales on CPU and pages operations on unhealthy targets and high CPU', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 2,
      MaxCapacity: 6,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
      }),
    });
    const alarms = t.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === 'UnHealthyHostCount')).toHaveLength(3);
    expect(alarms.filter((a) => a.MetricName === 'CPUUtilization' && a.Namespace === 'AWS/ECS')).toHaveLength(
      1,
    );
    for (const a of alarms.filter((x) => x.MetricName === 'UnHealthyHostCount' || x.Namespace === 'AWS/ECS'))
      expect(a.AlarmActions).toHaveLength(1);
  });

  it('deploys as a nested stack of the main one, which outputs the addresses routers are given', () => {
    const outputs = parent.json.Outputs as Record<string, { Value: unknown }>;
    const key = Object.keys(outputs).find((k) => k.includes('RadiusAddresses')) as string;
    const [nestedId] = parent.ofType('AWS::CloudFormation::Stack')[0] ?? [];
    const nestedOutputs = t.json.Outputs as Record<string, { Value: unknown }>;
    const value = outputs[key]?.Value as { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] };
    const joined = value['Fn::Join'];
    expect(joined[0]).toBe(',');
    // Each address is an output of the nested stack: the public IP of one of the front's EIPs.
    expect(
      joined[1].map((g) => {
        expect(g['Fn::GetAtt'][0]).toBe(nestedId);
        return nestedOutputs[g['Fn::GetAtt'][1].replace(/^Outputs\./, '')]?.Value;
      }),
    ).toEqual(frontAddresses().map((id) => ({ 'Fn::GetAtt': [id, 'PublicIp'] })));
  });

  it("keeps the main stack under CloudFormation's 500 resources, with room for 5 more routes", () => {
    // A route costs five resources (function, log group, permission, integration, route): when
    // this fails, move a group of routes (an area of functions/routes.ts) to a nested stack as
    // the front is.
    expect(Object.keys(parent.resources).length).toBeLessThanOrEqual(500 - 5 * 5);
  });

  it('stages the image (Dockerfile on the official FreeRADIUS 3.2 image, and the shipped configuration) without building it', () => {
    const outdir = app.synth().directory;
    const assets = JSON.parse(readFileSync(join(outdir, 'Front.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1);
    const dir = join(outdir, (images[0] as { source: { directory: string } }).source.directory);
    expect(readFileSync(join(dir, 'Dockerfile'), 'utf8')).toMatch(
      /^ARG FREERADIUS_IMAGE=freeradius\/freeradius-server:3\.2\.\d+$/m,
    );
    for (const f of ['run.sh', 'radiusd.conf', 'clients.conf', 'sites/radsec', 'sites/dynamic-clients'])
      expect(existsSync(join(dir, f)), f).toBe(true);
  });
});
