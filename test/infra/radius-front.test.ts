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

/** The front's nested stack as the parent deploys it (the API's nested areas are others). */
const frontNested = () =>
  parent.ofType('AWS::CloudFormation::Stack').filter(([id]) => id.startsWith('RadiusFront'));

/** The parent's value for a parameter of the nested stack given as `{ Ref: name }`. */
const parameterValue = (ref: unknown): unknown => {
  const name = (ref as { Ref: string }).Ref;
  const nested = frontNested();
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

  it('runs FreeRADIUS and its service on Fargate in private subnets, the sealing key from Secrets Manager, logs in CloudWatch', () => {
    const sealKey = parent
      .ofType('AWS::SecretsManager::Secret')
      .find(([, s]) => String(s.Properties.Description).startsWith('ROUTER_SEAL_KEY:'))?.[0] as string;
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      DesiredCount: 2,
      NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: 'DISABLED' } },
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      ContainerDefinitions: [
        Match.objectLike({
          Secrets: [
            { Name: 'ROUTER_SEAL_KEY', ValueFrom: Match.anyValue() },
            { Name: 'RADIUS_TLS_CA_PEM', ValueFrom: Match.anyValue() },
            { Name: 'RADIUS_TLS_CERT_PEM', ValueFrom: Match.anyValue() },
            { Name: 'RADIUS_TLS_KEY_PEM', ValueFrom: Match.anyValue() },
          ],
          LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }),
          PortMappings: [
            { ContainerPort: 1812, Protocol: 'udp' },
            { ContainerPort: 1813, Protocol: 'udp' },
            { ContainerPort: 2083, Protocol: 'tcp' },
          ],
          Environment: Match.arrayWith([
            // The service: on the table, on loopback (run.sh starts it before FreeRADIUS).
            { Name: 'TABLE_NAME', Value: Match.anyValue() },
            { Name: 'RADIUS_SERVICE_PORT', Value: '18120' },
            { Name: 'RADIUS_ROUTER_HOLD_S', Value: '5' },
            { Name: 'RADIUS_CLIENT_IPADDR', Value: '0.0.0.0/0' },
            { Name: 'RADIUS_CLIENT_LIFETIME', Value: '60' },
          ]),
        }),
      ],
    });
    const containers = t.ofType('AWS::ECS::TaskDefinition')[0]?.[1].Properties.ContainerDefinitions as {
      Secrets: { ValueFrom: unknown }[];
      Environment: { Name: string }[];
    }[];
    expect(parameterValue(containers[0]?.Secrets[0]?.ValueFrom)).toEqual({ Ref: sealKey });
    const env = JSON.stringify(containers);
    expect(env).not.toMatch(/RADIUS_SECRET|testing123/);
    // Nothing public is asked: no API URL, no bearer secret of the stack (run.sh makes the task's own).
    expect(containers[0]?.Environment.map((e) => e.Name)).not.toContain('RADIUS_API_URL');
    expect(env).not.toContain('RADIUS_API_SECRET');
    expect(
      parent.ofType('AWS::SecretsManager::Secret').map(([, s]) => String(s.Properties.Description)),
    ).not.toContainEqual(expect.stringMatching(/^RADIUS_API_SECRET:/));
  });

  it("reaches DynamoDB through a gateway endpoint, its task role granted the table (the front rows' grants)", () => {
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      ServiceName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.dynamodb'])]) }),
      VpcEndpointType: 'Gateway',
    });
    const task = t.ofType('AWS::ECS::TaskDefinition')[0]?.[1].Properties as {
      TaskRoleArn: { 'Fn::GetAtt': string[] };
    };
    const role = task.TaskRoleArn['Fn::GetAtt'][0];
    const policies = t
      .ofType('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${role}"`))
      .flatMap(
        ([, p]) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement,
      );
    const actions = policies.flatMap((st) => [st.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query']),
    );
    expect(actions.filter((a) => !a.startsWith('dynamodb:'))).toEqual([]);
  });

  it("scales on RADIUS packets per task (the NLB's over its healthy targets), one metric specification, not on CPU", () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 2,
      MaxCapacity: 6,
    });
    const policies = t.ofType('AWS::ApplicationAutoScaling::ScalingPolicy').map(([, p]) => p.Properties);
    expect(policies).toHaveLength(1);
    const config = policies[0]?.TargetTrackingScalingPolicyConfiguration as {
      TargetValue: number;
      PredefinedMetricSpecification?: unknown;
      CustomizedMetricSpecification: Record<string, unknown> & {
        Metrics: {
          Id: string;
          Expression?: string;
          MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
          ReturnData: boolean;
        }[];
      };
    };
    expect(config.PredefinedMetricSpecification).toBeUndefined();
    expect(config.TargetValue).toBe(400 * 60);
    // Metric math alone: the single metric's fields would make a second specification, which
    // Application Auto Scaling refuses (test/infra/cfn-schema.test.ts checks the rule for every policy).
    expect(Object.keys(config.CustomizedMetricSpecification)).toEqual(['Metrics']);
    const metrics = config.CustomizedMetricSpecification.Metrics;
    expect(metrics.map((m) => [m.Id, m.MetricStat?.Metric.MetricName ?? m.Expression, m.ReturnData])).toEqual(
      [
        ['packets', 'ProcessedPackets', false],
        ['tasks', 'HealthyHostCount', false],
        ['perTask', 'packets / tasks', true],
      ],
    );
    // The healthy targets of the auth listener: one per running task.
    const [[authGroup] = []] = t
      .ofType('AWS::ElasticLoadBalancingV2::TargetGroup')
      .filter(([, g]) => g.Properties.Port === 1812);
    expect(metrics[1]?.MetricStat?.Metric.Dimensions.map((d) => d.Name)).toEqual([
      'TargetGroup',
      'LoadBalancer',
    ]);
    expect(JSON.stringify(metrics[1]?.MetricStat?.Metric.Dimensions[0]?.Value)).toContain(
      authGroup as string,
    );
    template.hasResourceProperties('AWS::ECS::Service', {
      ServiceName: 'radius-front',
      DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 100 }),
    });
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterName: 'Front-radius' });
  });

  it('pages operations on unhealthy targets, high CPU and a failed certificate rotation, and again when each is over', () => {
    const alarms = t.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === 'UnHealthyHostCount')).toHaveLength(3);
    expect(alarms.filter((a) => a.MetricName === 'CPUUtilization' && a.Namespace === 'AWS/ECS')).toHaveLength(
      1,
    );
    expect(alarms.filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda')).toHaveLength(1);
    const paging = alarms.filter((a) => a.AlarmActions);
    expect(paging).toHaveLength(5);
    for (const a of paging) {
      expect(a.AlarmActions).toHaveLength(1);
      expect(a.OKActions).toEqual(a.AlarmActions);
      // The cell's front in every alarm's words (its metrics are its own NLB's, service's, function's).
      expect(String(a.AlarmDescription)).toContain('RADIUS front Front-radius');
      expect(String(a.AlarmName)).toMatch(/^Front-Front[A-Za-z]+$/);
    }
  });

  it("shows RADIUS traffic well below the hour's usual without paging, and not before the routers report", () => {
    const low = t
      .ofType('AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .find((a) => a.ComparisonOperator === 'LessThanLowerThreshold');
    // A town's power cut, an ISP's outage: nobody in operations can act on it.
    expect(low).toMatchObject({
      AlarmName: 'Front-FrontRequestsLow',
      ThresholdMetricId: 'band',
      ActionsEnabled: false,
      // No data (a cell whose routers have not come yet, no model learnt) is no breach.
      TreatMissingData: 'notBreaching',
    });
    expect(low?.AlarmActions).toBeUndefined();
    expect(low?.OKActions).toBeUndefined();
    const metrics = low?.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string }[] } };
    }[];
    expect(metrics.find((m) => m.Id === 'band')?.Expression).toBe('ANOMALY_DETECTION_BAND(packets, 3)');
    expect(metrics.find((m) => m.Id === 'packets')?.MetricStat?.Metric).toMatchObject({
      Namespace: 'AWS/NetworkELB',
      MetricName: 'ProcessedPackets',
      Dimensions: [{ Name: 'LoadBalancer' }],
    });
  });

  it('keeps its addresses and its NLB when the stack is deleted, with a NAT gateway and a fixed egress address per AZ', () => {
    const eips = t.ofType('AWS::EC2::EIP');
    expect(eips).toHaveLength(4);
    for (const [, eip] of eips)
      expect([eip.DeletionPolicy, eip.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    const [[, nlb] = []] = t.ofType('AWS::ElasticLoadBalancingV2::LoadBalancer');
    expect(nlb?.DeletionPolicy).toBe('Retain');
    // Nor can anyone delete it by hand (or an update replace it) while its addresses are the routers'.
    expect(nlb?.Properties.LoadBalancerAttributes).toEqual(
      expect.arrayContaining([{ Key: 'deletion_protection.enabled', Value: 'true' }]),
    );
    const egress = eips
      .filter(([, e]) => JSON.stringify(e.Properties.Tags ?? []).includes('radius-egress-'))
      .map(([id]) => ({ 'Fn::GetAtt': [id, 'AllocationId'] }));
    expect(egress).toHaveLength(2);
    const nats = t.ofType('AWS::EC2::NatGateway').map(([, n]) => n.Properties.AllocationId);
    expect(nats).toEqual(egress);
    const outputs = parent.json.Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['RadiusAddresses', 'RadiusEgressAddresses']),
    );
  });

  it("renews its server certificate when due, daily in the cell's night, first at the deploy before the service, the CA key read by that function alone", () => {
    const [[rotationId, rotation] = []] = t
      .ofType('AWS::Lambda::Function')
      .filter(([, f]) => String(f.Properties.Description).includes('renews its server certificate'));
    expect(rotation).toBeDefined();
    const env = (
      (rotation as { Properties: Record<string, unknown> }).Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(env).toMatchObject({ FRONT_CLUSTER: 'Front-radius', FRONT_SERVICE: 'radius-front' });
    // The schedule (03:00 in the cell's time zone: UTC without one), and the deploy-time run the
    // service waits for.
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(0 3 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [rotationId, 'Arn'] } })],
    });
    const [[issuedId, issued] = []] = t.ofType('AWS::CloudFormation::CustomResource');
    expect(issued?.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [rotationId, 'Arn'] });
    const [[, service] = []] = t.ofType('AWS::ECS::Service');
    expect((service as unknown as { DependsOn: string[] }).DependsOn).toContain(issuedId);
    // Its grants: the CA key read, the TLS secret read and written, one service rolled.
    const statements = t.statementsOfFunction(rotationId as string);
    const tlsSecret = t.ofType('AWS::SecretsManager::Secret')[0]?.[0];
    const on = (action: string) =>
      statements.filter((st) => [st.Action].flat().includes(action)).map((st) => JSON.stringify(st.Resource));
    expect(on('secretsmanager:PutSecretValue')).toEqual([JSON.stringify({ Ref: tlsSecret })]);
    expect(on('ecs:UpdateService')).toHaveLength(1);
    expect(on('ecs:UpdateService')[0]).toContain('service/Front-radius/radius-front');
    expect(on('ecs:DescribeServices')).toEqual(on('ecs:UpdateService'));
    const caParam = env.ROUTER_CA_KEY_ARN as { Ref: string };
    expect(parameterValue(caParam)).toEqual({
      Ref: parent
        .ofType('AWS::SecretsManager::Secret')
        .find(([, s]) => String(s.Properties.Description).startsWith('ROUTER_CA_KEY:'))?.[0],
    });
    expect(on('secretsmanager:GetSecretValue').sort()).toEqual(
      [JSON.stringify(caParam), JSON.stringify({ Ref: tlsSecret })].sort(),
    );
    expect(statements.flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('ecs:'))).toEqual([
      'ecs:DescribeServices',
      'ecs:UpdateService',
    ]);
  });

  it('lets only the router keys function read the CA key and the sealing key, two secrets', () => {
    const secretOf = (name: string) =>
      parent
        .ofType('AWS::SecretsManager::Secret')
        .find(([, sec]) => String(sec.Properties.Description).startsWith(`${name}:`))?.[0];
    const readers = (name: string) =>
      parent
        .ofType('AWS::Lambda::Function')
        .filter(([id]) =>
          parent
            .statementsOfFunction(id)
            .some((st) => JSON.stringify(st.Resource).includes(`"${secretOf(name)}"`)),
        )
        .map(([, f]) => String(f.Properties.Description).split(':')[0])
        .sort();
    expect(secretOf('ROUTER_CA_KEY')).toBeDefined();
    expect(secretOf('ROUTER_CA_KEY')).not.toBe(secretOf('ROUTER_SEAL_KEY'));
    // Registration, new credentials and the edges ask it (test/infra/router-keys.test.ts); the
    // front's service opens the sealed secrets too (its task's ECS secret, above), and the
    // front's rotation reads the CA key (its own test, above).
    expect(readers('ROUTER_CA_KEY')).toEqual(['RouterKeys']);
    expect(readers('ROUTER_SEAL_KEY')).toEqual(['RouterKeys']);
    // The CA key keeps the logical id the first deploys gave ROUTER_KEY_SEED: the same secret, the same CA.
    expect(secretOf('ROUTER_CA_KEY')).toBe('DataSecretROUTERKEYSEEDB949CC6E');
    expect(Object.keys(parent.resources)).not.toContain('GetRadiusTls');
    expect(parent.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey)).not.toContain(
      'GET /api/v1/radius/tls',
    );
  });

  it("gives the routers' setup scripts both front addresses and the Disconnect sources from the same deploy", () => {
    const env = parent.envOf('POST /api/v1/routers');
    const [nestedId] = frontNested()[0] ?? [];
    const nestedOutputs = t.json.Outputs as Record<string, { Value: unknown }>;
    const resolve = (joined: unknown) =>
      (joined as { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] })['Fn::Join'][1].map((g) => {
        expect(g['Fn::GetAtt'][0]).toBe(nestedId);
        return nestedOutputs[g['Fn::GetAtt'][1].replace(/^Outputs\./, '')]?.Value;
      });
    const tagged = (prefix: string) =>
      t
        .ofType('AWS::EC2::EIP')
        .filter(([, e]) => JSON.stringify(e.Properties.Tags ?? []).includes(prefix))
        .map(([id]) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }));
    expect(resolve(env.RADIUS_HOST)).toEqual(tagged('"radius-front-'));
    expect(resolve(env.RADIUS_DISCONNECT_FROM)).toEqual(tagged('"radius-egress-'));
  });

  it("points the canary's RADIUS check at the front, from one subnet of the front whose NAT address the stack outputs", () => {
    const [canaryId, canary] =
      parent
        .ofType('AWS::Lambda::Function')
        .find(([, f]) => String(f.Properties.Description).startsWith('Canary:')) ?? [];
    if (!canaryId || !canary) throw new Error('no canary function');
    const [nestedId] = frontNested()[0] ?? [];
    const nestedOutputs = t.json.Outputs as Record<string, { Value: unknown }>;
    const fromNested = (ref: unknown) => {
      const att = (ref as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      expect(att[0]).toBe(nestedId);
      return nestedOutputs[att[1].replace(/^Outputs\./, '')]?.Value;
    };
    const env = (canary.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(fromNested(env.CANARY_RADIUS_HOST)).toEqual({ 'Fn::GetAtt': [frontAddresses()[0], 'PublicIp'] });
    const vpc = canary.Properties.VpcConfig as { SubnetIds: unknown[] };
    expect(vpc.SubnetIds).toHaveLength(1);
    const outputs = parent.json.Outputs as Record<string, { Value: unknown }>;
    const source = Object.keys(outputs).find((k) => k.includes('CanaryRadiusSource')) as string;
    const egress = fromNested(outputs[source]?.Value) as { 'Fn::GetAtt': [string, string] };
    expect(JSON.stringify(t.resources[egress['Fn::GetAtt'][0]]?.Properties.Tags)).toContain(
      'radius-egress-1',
    );
  });

  it('deploys as a nested stack of the main one, which outputs the addresses routers are given', () => {
    const outputs = parent.json.Outputs as Record<string, { Value: unknown }>;
    const key = Object.keys(outputs).find((k) => k.includes('RadiusAddresses')) as string;
    const [nestedId] = frontNested()[0] ?? [];
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

  it('stages the image (the official FreeRADIUS image at 3.2.5 or later, Node 22, the task platform, and the shipped configuration) without building it', () => {
    const outdir = app.synth().directory;
    const assets = JSON.parse(readFileSync(join(outdir, 'Front.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; platform?: string } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1);
    const source = (images[0] as { source: { directory: string; platform?: string } }).source;
    const dir = join(outdir, source.directory);
    const dockerfile = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    // FreeRADIUS pinned at 3.2.5 or later (BlastRADIUS), Node 22, built for the task's architecture.
    const [, patch] =
      /^ARG FREERADIUS_IMAGE=freeradius\/freeradius-server:3\.2\.(\d+)$/m.exec(dockerfile) ?? [];
    expect(Number(patch)).toBeGreaterThanOrEqual(5);
    expect(dockerfile).toMatch(/^FROM --platform=linux\/amd64 node:22-bookworm-slim AS node$/m);
    expect(dockerfile).toMatch(/^FROM --platform=linux\/amd64 \$\{FREERADIUS_IMAGE\}$/m);
    expect(source.platform).toBe('linux/amd64');
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
    });
    expect(dockerfile).not.toMatch(/curl|jq/);
    for (const f of ['run.sh', 'radiusd.conf', 'clients.conf', 'sites/radsec', 'sites/dynamic-clients'])
      expect(existsSync(join(dir, f)), f).toBe(true);
  });
});
