import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { acknowledge } from './nag.js';

/** The configuration directory the image is built from (its Dockerfile on the official image). */
export const FREERADIUS_DIR = fileURLToPath(new URL('../deploy/freeradius', import.meta.url));

export const RADIUS_PORTS = { auth: 1812, acct: 1813, radsec: 2083 } as const;

export interface RadiusFrontProps {
  /** The API's base URL: FreeRADIUS calls /api/v1/radius/* on it. */
  apiUrl: string;
  /** RADIUS_API_SECRET: the bearer FreeRADIUS sends (one token). */
  apiSecret: ISecret;
  opsTopic: ITopic;
  /** Availability zones, one Elastic IP (a fixed router-facing address) each. Default 2. */
  azs?: number;
  /** Tasks at least / at most (scaled on CPU). Default 2 / 6. */
  minTasks?: number;
  maxTasks?: number;
  /** Seconds a UDP router's definition stays cached in a task (<= 60). Default 60. */
  clientLifetimeS?: number;
}

/**
 * The RADIUS front in AWS: FreeRADIUS (deploy/freeradius, built on the official image at deploy)
 * on ECS Fargate behind a Network Load Balancer with one Elastic IP per availability zone
 * (RouterOS takes an address, not a name). Listeners: UDP 1812 (auth), UDP 1813 (accounting),
 * TCP 2083 (RadSec, TLS end to end: the NLB passes it through, FreeRADIUS checks the router's
 * certificate).
 *
 * - An NLB cannot health-check UDP: every target group is checked over TCP on 2083, the RadSec
 *   listener of the same task (a TCP connect, no TLS).
 * - UDP target groups keep the router's source address (FreeRADIUS finds the router by it) and
 *   terminate connections on deregistration: a router's long-lived UDP flow would otherwise stay
 *   pinned to a replaced task.
 * - Tasks sit in private subnets and reach the API through NAT; their secrets come from Secrets
 *   Manager (ECS secrets), their logs go to CloudWatch. Scaling on CPU; alarms on unhealthy
 *   targets and CPU page the operations topic.
 */
export class RadiusFront extends Construct {
  readonly vpc: ec2.Vpc;
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly service: ecs.FargateService;
  readonly addresses: ec2.CfnEIP[];

  constructor(scope: Construct, id: string, props: RadiusFrontProps) {
    super(scope, id);
    const azs = props.azs ?? 2;

    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: azs,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'tasks', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
      ],
      flowLogs: {
        all: {
          destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
          trafficType: ec2.FlowLogTrafficType.REJECT,
        },
      },
    });

    const cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });
    const logs = new LogGroup(this, 'Logs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const task = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: 512,
      memoryLimitMiB: 1024,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    const container = task.addContainer('freeradius', {
      image: ecs.ContainerImage.fromAsset(FREERADIUS_DIR),
      essential: true,
      environment: {
        RADIUS_API_URL: props.apiUrl,
        // The NLB keeps the router's address on UDP: any address may be a registered router.
        RADIUS_CLIENT_IPADDR: '0.0.0.0/0',
        RADIUS_LISTEN_ADDR: '0.0.0.0',
        RADIUS_AUTH_PORT: String(RADIUS_PORTS.auth),
        RADIUS_ACCT_PORT: String(RADIUS_PORTS.acct),
        RADIUS_TLS_PORT: String(RADIUS_PORTS.radsec),
        RADIUS_CLIENT_LIFETIME: String(props.clientLifetimeS ?? 60),
        RADIUS_API_TIMEOUT: '2',
      },
      secrets: { RADIUS_API_SECRET: ecs.Secret.fromSecretsManager(props.apiSecret) },
      logging: ecs.LogDrivers.awsLogs({ logGroup: logs, streamPrefix: 'freeradius' }),
      portMappings: [
        { containerPort: RADIUS_PORTS.auth, protocol: ecs.Protocol.UDP },
        { containerPort: RADIUS_PORTS.acct, protocol: ecs.Protocol.UDP },
        { containerPort: RADIUS_PORTS.radsec, protocol: ecs.Protocol.TCP },
      ],
      readonlyRootFilesystem: false,
    });

    const tasksSg = new ec2.SecurityGroup(this, 'TasksSg', {
      vpc: this.vpc,
      description: 'RADIUS front tasks: RADIUS/UDP and RadSec from the routers (through the NLB)',
      allowAllOutbound: true,
    });
    // UDP through the NLB keeps the router's address: the routers are anywhere. Every packet is
    // authenticated (a registered router's secret or certificate); unknown sources are dropped.
    tasksSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.udp(RADIUS_PORTS.auth), 'RADIUS auth from routers');
    tasksSg.addIngressRule(
      ec2.Peer.anyIpv4(),
      ec2.Port.udp(RADIUS_PORTS.acct),
      'RADIUS accounting from routers',
    );
    tasksSg.addIngressRule(
      ec2.Peer.anyIpv4(),
      ec2.Port.tcp(RADIUS_PORTS.radsec),
      'RadSec from routers, NLB health checks',
    );

    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition: task,
      desiredCount: props.minTasks ?? 2,
      securityGroups: [tasksSg],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });

    // One Elastic IP per AZ, on the NLB's public subnets: the routers' fixed addresses.
    const publicSubnets = this.vpc.publicSubnets;
    this.addresses = publicSubnets.map(
      (_, i) =>
        new ec2.CfnEIP(this, `Address${i + 1}`, {
          domain: 'vpc',
          tags: [{ key: 'Name', value: `radius-front-${i + 1}` }],
        }),
    );
    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'Nlb', {
      vpc: this.vpc,
      internetFacing: true,
      crossZoneEnabled: true,
      subnetMappings: publicSubnets.map((subnet, i) => ({
        subnet,
        allocationId: (this.addresses[i] as ec2.CfnEIP).attrAllocationId,
      })),
    });

    const healthCheck: elbv2.HealthCheck = {
      protocol: elbv2.Protocol.TCP,
      port: String(RADIUS_PORTS.radsec),
      interval: Duration.seconds(10),
      healthyThresholdCount: 2,
      unhealthyThresholdCount: 2,
    };
    const targetGroups: Record<keyof typeof RADIUS_PORTS, elbv2.NetworkTargetGroup> = {} as never;
    for (const [name, port] of Object.entries(RADIUS_PORTS) as [keyof typeof RADIUS_PORTS, number][]) {
      const udp = name !== 'radsec';
      const protocol = udp ? elbv2.Protocol.UDP : elbv2.Protocol.TCP;
      const tg = new elbv2.NetworkTargetGroup(this, `${name}Targets`, {
        vpc: this.vpc,
        port,
        protocol,
        targetType: elbv2.TargetType.IP,
        healthCheck,
        deregistrationDelay: Duration.seconds(30),
        // A replaced task's flows end with it, so routers' next packets reach a live task.
        connectionTermination: true,
        targets: [
          this.service.loadBalancerTarget({
            containerName: container.containerName,
            containerPort: port,
            protocol: udp ? ecs.Protocol.UDP : ecs.Protocol.TCP,
          }),
        ],
      });
      // RadSec (TCP) keeps the router's own address too, as UDP always does: FreeRADIUS passes it
      // to the API (Hotspot-NAS-IP), which takes it for the hotspot's public address.
      if (!udp) tg.setAttribute('preserve_client_ip.enabled', 'true');
      this.loadBalancer.addListener(`${name}Listener`, { port, protocol, defaultTargetGroups: [tg] });
      targetGroups[name] = tg;
    }

    const scaling = this.service.autoScaleTaskCount({
      minCapacity: props.minTasks ?? 2,
      maxCapacity: props.maxTasks ?? 6,
    });
    scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: 60,
      scaleInCooldown: Duration.minutes(5),
      scaleOutCooldown: Duration.minutes(1),
    });

    const page = new SnsAction(props.opsTopic);
    for (const [name, tg] of Object.entries(targetGroups)) {
      const alarm = new cloudwatch.Alarm(this, `${name}UnhealthyAlarm`, {
        alarmDescription: `RADIUS front: a ${name} target (FreeRADIUS task) fails its health check`,
        metric: tg.metrics.unHealthyHostCount({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
      alarm.addAlarmAction(page);
    }
    const cpu = new cloudwatch.Alarm(this, 'CpuAlarm', {
      alarmDescription: 'RADIUS front: CPU high although scaling (at its maximum task count?)',
      metric: this.service.metricCpuUtilization({ period: Duration.minutes(5) }),
      threshold: 85,
      evaluationPeriods: 3,
    });
    cpu.addAlarmAction(page);

    acknowledge(this, [
      {
        id: 'AwsSolutions-EC23',
        reason:
          'Routers reach the RADIUS front from anywhere (mobile and residential links): the ports are open to ' +
          'all, and each packet is authenticated by its router (its own UDP secret bound to its address, or its ' +
          'RadSec client certificate); packets from unregistered addresses are dropped by FreeRADIUS.',
      },
      {
        id: 'AwsSolutions-ELB2',
        reason:
          'NLB access logs cover TLS listeners only; these listeners are UDP and TCP pass-through (RadSec ends ' +
          'in FreeRADIUS, which logs every request to CloudWatch).',
      },
      {
        id: 'AwsSolutions-ECS2',
        reason:
          'The environment holds settings only (API URL, ports, timeouts); the bearer secret comes from ' +
          'Secrets Manager as an ECS secret.',
      },
    ]);
    // Only on the task's execution role: nowhere else in the front is `*` acknowledged.
    acknowledge(task.obtainExecutionRole(), [
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "The task execution role's ecr:GetAuthorizationToken has no resource to scope to (AWS-defined); every " +
          'other grant (the image repository, the log group, the one secret) is scoped by the CDK.',
      },
    ]);
  }
}
