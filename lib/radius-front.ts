// The RADIUS front in the stack: FreeRADIUS and its service as an ECS task behind a network load balancer, its secrets and alarms.

import { fileURLToPath } from 'node:url';
import { CfnCustomResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnScalingPolicy } from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TABLE } from '../functions/store/table.js';
import { alarmName, type Pager, pagingAlarm } from './alarms.js';
import { ServiceFunction } from './api-function.js';
import { frontImageContext } from './front-bundle.js';
import { acknowledge } from './nag.js';
import type { HeldAddress } from './settings.js';

/** The configuration directory the image is built from (its Dockerfile on the official image). */
export const FREERADIUS_DIR = fileURLToPath(new URL('../deploy/freeradius', import.meta.url));

export const RADIUS_PORTS = { auth: 1812, acct: 1813, radsec: 2083 } as const;

/** The front's service (functions/front/main.ts) in its task: loopback only. */
export const RADIUS_SERVICE_PORT = 18120;

export interface RadiusFrontProps {
  /** The table the front's service reads and writes (the RADIUS data plane's rows), with the task's role. */
  table: ITable;
  /** ROUTER_SEAL_KEY: the service opens UDP routers' secrets with it (client lookup, Disconnect claim). */
  sealKey: ISecret;
  /** ROUTER_CA_KEY: read by the front's certificate rotation only (nothing else here). */
  caKey: ISecret;
  /**
   * The cluster's and the service's names (`<stack>-radius`, `radius-front`): fixed, so that the
   * certificate rotation, deployed before the service, can name the service it rolls.
   */
  name: string;
  /** The server certificate's CN (the front's name as routers know it). */
  tlsName: string;
  /** The functions' shared environment (STAGE, CELL_ID, ...): the rotation's, and the service's. */
  environment: Record<string, string>;
  opsTopic: ITopic;
  /** The alarms' names: `<prefix>-<Name>` (the cell's stack name). */
  alarmPrefix: string;
  /** Availability zones, one Elastic IP (a fixed router-facing address) each. Default 2. */
  azs?: number;
  /**
   * The zones by name (context `availabilityZones`): a synth for an account then looks nothing
   * up. Their count replaces `azs`.
   */
  availabilityZones?: string[];
  /**
   * The router-facing addresses to adopt, one per AZ (context `radiusAddresses`): a cell
   * deployed again after a deletion keeps the addresses its routers were given. Without them
   * the stack makes its own (retained when it is deleted).
   */
  heldAddresses?: HeldAddress[];
  /** The NAT gateways' addresses to adopt, one per AZ (context `radiusEgressAddresses`). */
  heldEgressAddresses?: HeldAddress[];
  /**
   * Minute of the UTC day the certificate rotation runs at: the cell's local night (lib/settings.ts),
   * when a rolling replacement of the tasks disturbs fewest routers.
   */
  maintenanceUtcMinute?: number;
  /** Tasks at least / at most (scaled on RADIUS packets per task). Default 2 / 6. */
  minTasks?: number;
  maxTasks?: number;
  /**
   * RADIUS packets a task takes per second, in and out, before another is added. Default 400:
   * about 200 exchanges a second, under half of what one task answered in `npm run bench`
   * (267-478 a second by kind): room for a burst while the new task starts.
   */
  packetsPerTask?: number;
  /** Seconds a UDP router's definition stays cached in a task (<= 60). Default 60. */
  clientLifetimeS?: number;
}

/**
 * The RADIUS front in AWS: FreeRADIUS (deploy/freeradius, built on the official image at deploy)
 * and, beside it in each task, the front's service (functions/front: the RADIUS data plane,
 * which FreeRADIUS calls on loopback; it reads and writes the table with the task's role through
 * the VPC's DynamoDB gateway endpoint, and holds the routers in memory) on ECS Fargate behind a Network Load Balancer with one Elastic IP per availability zone
 * (RouterOS takes an address, not a name). Listeners: UDP 1812 (auth), UDP 1813 (accounting),
 * TCP 2083 (RadSec, TLS end to end: the NLB passes it through, FreeRADIUS checks the router's
 * certificate).
 *
 * - An NLB cannot health-check UDP: every target group is checked over TCP on 2083, the RadSec
 *   listener of the same task (a TCP connect, no TLS).
 * - UDP target groups keep the router's source address (FreeRADIUS finds the router by it) and
 *   terminate connections on deregistration: a router's long-lived UDP flow would otherwise stay
 *   pinned to a replaced task.
 * - Tasks sit in private subnets; DynamoDB through a gateway endpoint (no NAT data path), the rest
 *   (ECR, logs, Secrets Manager at start) through a NAT gateway per AZ (fixed, retained
 *   addresses: where Disconnect-Requests come from); their secrets, the RadSec files included,
 *   come from Secrets Manager (ECS secrets), their logs go to CloudWatch. Nothing public is asked.
 * - The server certificate is issued and renewed by the stack (functions/routers/front-tls.ts):
 *   at each deploy before the service, then daily, with a rolling replacement of the tasks.
 * - Scaling on RADIUS packets per task; alarms on unhealthy targets, CPU, a failed rotation and
 *   RADIUS traffic below the hour's usual page the operations topic.
 */
export class RadiusFront extends Construct {
  readonly vpc: ec2.Vpc;
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly service: ecs.FargateService;
  /** The routers' RADIUS addresses: the NLB's, one per AZ (made here, or adopted). */
  readonly addresses: HeldAddress[];
  /** Where the front's own packets leave from (the NAT gateways', one per AZ): Disconnect-Requests. */
  readonly egressAddresses: HeldAddress[];
  /** The secret holding the RadSec files the tasks start with (written by the rotation). */
  readonly tlsFiles: Secret;
  /** The server certificate's rotation (functions/routers/front-tls-rotation.ts). */
  readonly rotation: IFunction;

  constructor(scope: Construct, id: string, props: RadiusFrontProps) {
    super(scope, id);
    const azs = props.availabilityZones?.length ?? props.azs ?? 2;
    // Routers are configured with these addresses by hand: a stack deletion must not free them,
    // and a stack deployed again adopts them by allocation id (context), not new ones.
    const addressesOf = (prefix: string, held: HeldAddress[] | undefined): HeldAddress[] => {
      if (held) {
        if (held.length !== azs) throw new Error(`${prefix}: ${azs} addresses needed, one per AZ`);
        return held;
      }
      return Array.from({ length: azs }, (_, i) => {
        const eip = new ec2.CfnEIP(
          this,
          `${prefix === 'radius-front' ? 'Address' : 'EgressAddress'}${i + 1}`,
          {
            domain: 'vpc',
            tags: [{ key: 'Name', value: `${prefix}-${i + 1}` }],
          },
        );
        eip.applyRemovalPolicy(RemovalPolicy.RETAIN);
        return { allocationId: eip.attrAllocationId, publicIp: eip.attrPublicIp };
      });
    };

    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A NAT gateway per AZ, each with an Elastic IP of the stack (retained): an AZ lost leaves
    // the others' egress, and the addresses Disconnect-Requests leave from are fixed and known
    // (the stack's RadiusEgressAddresses output, which the routers' script allows).
    this.egressAddresses = addressesOf('radius-egress', props.heldEgressAddresses);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ...(props.availabilityZones ? { availabilityZones: props.availabilityZones } : { maxAzs: azs }),
      natGateways: azs,
      natGatewayProvider: ec2.NatProvider.gateway({
        eipAllocationIds: this.egressAddresses.map((a) => a.allocationId),
      }),
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

    // The service's DynamoDB traffic stays in the VPC (no NAT gateway data charge, no public path).
    this.vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });

    // No Container Insights: its per-task metrics and performance logs cost about $9 a cell a
    // month (docs/scale.md); scaling counts the healthy targets instead, and CPU comes from ECS's
    // own service metric.
    const cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      clusterName: props.name,
      containerInsightsV2: ecs.ContainerInsights.DISABLED,
    });
    const serviceName = 'radius-front';

    // ---- the RadSec server certificate: issued by the stack, renewed by the stack ----
    // The tasks read it from this secret at start (ECS secrets); nothing asks the public API,
    // so a first deploy whose domain's DNS is pointed afterwards starts as any other.
    this.tlsFiles = new Secret(this, 'TlsFiles', {
      description:
        "The RADIUS front's RadSec files (router CA, server certificate and key), written by its rotation",
      // A placeholder until the rotation's first run (at this deploy, before the service).
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const { fn: rotation } = new ServiceFunction(this, 'TlsRotation', {
      handler: 'routers/front-tls-rotation',
      description:
        'RADIUS front: renews its server certificate when a third of its lifetime is left, and rolls the tasks',
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: 'hotspot-front-tls',
        ROUTER_CA_KEY_ARN: props.caKey.secretArn,
        FRONT_TLS_SECRET_ARN: this.tlsFiles.secretArn,
        FRONT_CLUSTER: props.name,
        FRONT_SERVICE: serviceName,
        FRONT_TLS_NAME: props.tlsName,
      },
      timeout: Duration.seconds(30),
    });
    this.rotation = rotation;
    // The CA's key is read here and by the functions that issue routers' certificates, nowhere else.
    props.caKey.grantRead(rotation);
    this.tlsFiles.grantRead(rotation);
    this.tlsFiles.grantWrite(rotation);
    const stack = Stack.of(this);
    // It reads the service's task count to roll one task at a time (functions/routers/front-tls.ts).
    rotation.addToRolePolicy(
      new PolicyStatement({
        actions: ['ecs:DescribeServices', 'ecs:UpdateService'],
        resources: [
          stack.formatArn({
            service: 'ecs',
            resource: 'service',
            resourceName: `${props.name}/${serviceName}`,
          }),
        ],
      }),
    );
    // Daily, in the cell's night: a renewal (every 60 days) replaces the tasks then, one by one.
    const window = props.maintenanceUtcMinute ?? 3 * 60;
    new Rule(this, 'TlsRotationSchedule', {
      description: "Renew the RADIUS front's server certificate when due, in the cell's night",
      schedule: Schedule.cron({ hour: String(Math.floor(window / 60)), minute: String(window % 60) }),
      targets: [new LambdaFunction(rotation, { retryAttempts: 2 })],
    });
    // At every deploy's creation of the front: the secret holds a certificate before the first task.
    const issued = new CfnCustomResource(this, 'TlsIssued', { serviceToken: rotation.functionArn });
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
    // The service's grants, exactly the front rows' (functions/routes.ts: table write); its
    // sealing key comes as an ECS secret (read by the execution role at the task's start).
    // Each index by name (no `index/*`): the item reads and writes the front's rows make.
    task.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:ConditionCheckItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [
          props.table.tableArn,
          ...TABLE.indexes.map((index) => `${props.table.tableArn}/index/${index.name}`),
        ],
      }),
    );
    // The build context: deploy/freeradius with the service's bundle (service/main.mjs), bundled
    // at synth when the stack is to be deployed; a synth without bundling stages the directory.
    const context = Stack.of(this).bundlingRequired ? frontImageContext(FREERADIUS_DIR) : FREERADIUS_DIR;
    const container = task.addContainer('freeradius', {
      // Built for the task's architecture (the runtimePlatform above), whatever the deploying host's.
      image: ecs.ContainerImage.fromAsset(context, {
        platform: Platform.LINUX_AMD64,
        exclude: ['blastradius.conf', 'message-authenticator.conf', 'tls'],
      }),
      essential: true,
      environment: {
        // The service's: the functions' shared settings, the table, this region.
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: 'hotspot-radius-front',
        TABLE_NAME: props.table.tableName,
        AWS_REGION: stack.region,
        RADIUS_SERVICE_PORT: String(RADIUS_SERVICE_PORT),
        // A router and its NAS id judged from memory for 5 s (the directory's refresh): an
        // Interim-Update is then one DynamoDB call (functions/radius/caller.ts).
        RADIUS_ROUTER_HOLD_S: '5',
        // Its counts summed in memory and written once a minute, not one EMF line a request
        // (functions/core/metrics.ts): a few KB of logs a minute instead of gigabytes a day.
        METRICS_FLUSH_S: '60',
        // The NLB keeps the router's address on UDP: any address may be a registered router.
        RADIUS_CLIENT_IPADDR: '0.0.0.0/0',
        RADIUS_LISTEN_ADDR: '0.0.0.0',
        RADIUS_AUTH_PORT: String(RADIUS_PORTS.auth),
        RADIUS_ACCT_PORT: String(RADIUS_PORTS.acct),
        RADIUS_TLS_PORT: String(RADIUS_PORTS.radsec),
        RADIUS_CLIENT_LIFETIME: String(props.clientLifetimeS ?? 60),
        RADIUS_API_TIMEOUT: '2',
      },
      secrets: {
        // The service's alone: run.sh takes it out of FreeRADIUS's environment. (The bearer
        // between FreeRADIUS and the service is generated by run.sh for each task.)
        ROUTER_SEAL_KEY: ecs.Secret.fromSecretsManager(props.sealKey),
        // run.sh writes them to files and takes them out of the environment.
        RADIUS_TLS_CA_PEM: ecs.Secret.fromSecretsManager(this.tlsFiles, 'ca_pem'),
        RADIUS_TLS_CERT_PEM: ecs.Secret.fromSecretsManager(this.tlsFiles, 'cert_pem'),
        RADIUS_TLS_KEY_PEM: ecs.Secret.fromSecretsManager(this.tlsFiles, 'key_pem'),
      },
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

    // A deployment (a new image, or the rotation's forced one) starts new tasks before it stops
    // old ones (minimum healthy 100 %); an old task leaves the NLB with its deregistration delay.
    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      serviceName,
      taskDefinition: task,
      desiredCount: props.minTasks ?? 2,
      securityGroups: [tasksSg],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });
    this.service.node.addDependency(issued);

    // One Elastic IP per AZ, on the NLB's public subnets: the routers' fixed addresses.
    const publicSubnets = this.vpc.publicSubnets;
    this.addresses = addressesOf('radius-front', props.heldAddresses);
    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'Nlb', {
      vpc: this.vpc,
      internetFacing: true,
      crossZoneEnabled: true,
      // Deleting it by hand (or by a stack update that would replace it) is refused: its
      // addresses are the routers'.
      deletionProtection: true,
      subnetMappings: publicSubnets.map((subnet, i) => ({
        subnet,
        allocationId: (this.addresses[i] as HeldAddress).allocationId,
      })),
    });
    this.loadBalancer.applyRemovalPolicy(RemovalPolicy.RETAIN);

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

    // Scaling on RADIUS packets per task, a load the server reaches: FreeRADIUS is bound by its
    // threads waiting on DynamoDB, not by CPU, which stays low while requests queue. Target
    // tracking takes the NLB's processed packets over the healthy targets of the auth listener
    // (one per running task), in metric math.
    const scaling = this.service.autoScaleTaskCount({
      minCapacity: props.minTasks ?? 2,
      maxCapacity: props.maxTasks ?? 6,
    });
    scaling.scaleToTrackCustomMetric('Packets', {
      // The L2 policy takes a single metric; its specification is replaced by the math below.
      metric: this.loadBalancer.metrics.custom('ProcessedPackets', {
        statistic: 'Sum',
        period: Duration.minutes(1),
      }),
      targetValue: (props.packetsPerTask ?? 400) * 60,
      scaleInCooldown: Duration.minutes(5),
      scaleOutCooldown: Duration.minutes(1),
    });
    const [policy] = this.node.findAll().filter((c) => c instanceof CfnScalingPolicy);
    this.useMetricMath(policy as CfnScalingPolicy, targetGroups.auth);

    const pager: Pager = { prefix: props.alarmPrefix, topic: props.opsTopic };
    for (const [name, tg] of Object.entries(targetGroups)) {
      const short = `Front${name[0]?.toUpperCase()}${name.slice(1)}Unhealthy`;
      pagingAlarm(this, pager, short, {
        alarmDescription: `RADIUS front ${props.name}: a ${name} target (FreeRADIUS task) fails its health check`,
        metric: tg.metrics.unHealthyHostCount({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // The NLB reports its targets every minute, healthy or not: silence is itself wrong.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    }
    pagingAlarm(this, pager, 'FrontCpu', {
      alarmDescription: `RADIUS front ${props.name}: CPU high although scaling (at its maximum task count?)`,
      metric: this.service.metricCpuUtilization({ period: Duration.minutes(5) }),
      threshold: 85,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    pagingAlarm(this, pager, 'FrontTlsRotation', {
      alarmDescription: `RADIUS front ${props.name}: the server certificate rotation failed (30 days of margin at the first failure)`,
      metric: rotation.metricErrors({ period: Duration.days(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // The cell's RADIUS traffic well below the same hour's usual (a CloudWatch anomaly band,
    // which learns the hourly and weekly pattern). It pages nobody: a town's power cut or an
    // ISP's outage makes it fire, and no one in operations can act on those. What operations
    // can act on pages elsewhere: a country's cut link (CountryLinkCut, from the silent
    // sessions), a front refusing logins (FrontRefusingLogins), unhealthy targets, the canary.
    // Missing data (a cell whose routers have not come yet, no model learnt) is no breach.
    new cloudwatch.CfnAlarm(this, 'RequestsLowAlarm', {
      alarmName: alarmName(pager, 'FrontRequestsLow'),
      alarmDescription: `RADIUS front ${props.name}: RADIUS packets well below this hour's usual (anomaly band, 3 deviations); on the dashboard, pages nobody`,
      comparisonOperator: 'LessThanLowerThreshold',
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      thresholdMetricId: 'band',
      treatMissingData: 'notBreaching',
      actionsEnabled: false,
      metrics: [
        {
          id: 'packets',
          metricStat: {
            metric: {
              namespace: 'AWS/NetworkELB',
              metricName: 'ProcessedPackets',
              dimensions: [{ name: 'LoadBalancer', value: this.loadBalancer.loadBalancerFullName }],
            },
            period: 300,
            stat: 'Sum',
          },
          returnData: true,
          label: 'RADIUS packets',
        },
        { id: 'band', expression: 'ANOMALY_DETECTION_BAND(packets, 3)', label: 'usual', returnData: true },
      ],
    });

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
        id: 'AwsSolutions-ECS4',
        reason:
          "Container Insights' per-task metrics and performance logs cost about $9 a cell a month (docs/scale.md); " +
          "the service's CPU comes from ECS's own metric (its alarm), the task count from the NLB's healthy targets " +
          '(the scaling policy), and the tasks log to CloudWatch.',
      },
      {
        id: 'AwsSolutions-ECS2',
        reason:
          'The environment holds settings only (table name, ports, timeouts); the sealing key comes from ' +
          'Secrets Manager as an ECS secret, and the loopback bearer is generated in the task.',
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

  /**
   * The scaling policy's metric: the NLB's processed packets per healthy target of the auth
   * listener, as metric math. CustomizedMetricSpecification holds a single metric (MetricName,
   * Namespace, Dimensions, Statistic, Unit) or metric math (`Metrics`); the metric-math guide
   * builds a policy with `Metrics` alone
   * (https://docs.aws.amazon.com/autoscaling/application/userguide/application-auto-scaling-target-tracking-metric-math.html),
   * and given both, which one the service tracks is not said: the L2's single metric is removed,
   * so that the policy carries one (test/infra/cfn-schema.test.ts).
   */
  private useMetricMath(policy: CfnScalingPolicy, auth: elbv2.NetworkTargetGroup): void {
    const spec = 'TargetTrackingScalingPolicyConfiguration.CustomizedMetricSpecification';
    for (const single of ['MetricName', 'Namespace', 'Dimensions', 'Statistic', 'Unit'])
      policy.addPropertyDeletionOverride(`${spec}.${single}`);
    const metricStat = (name: string, dimensions: Record<string, string>, stat: string) => ({
      Metric: {
        Namespace: 'AWS/NetworkELB',
        MetricName: name,
        Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Stat: stat,
    });
    policy.addPropertyOverride(`${spec}.Metrics`, [
      {
        Id: 'packets',
        MetricStat: metricStat(
          'ProcessedPackets',
          { LoadBalancer: this.loadBalancer.loadBalancerFullName },
          'Sum',
        ),
        ReturnData: false,
      },
      {
        Id: 'tasks',
        MetricStat: metricStat(
          'HealthyHostCount',
          { TargetGroup: auth.targetGroupFullName, LoadBalancer: this.loadBalancer.loadBalancerFullName },
          'Average',
        ),
        ReturnData: false,
      },
      {
        Id: 'perTask',
        Expression: 'packets / tasks',
        Label: 'RADIUS packets per task a minute',
        ReturnData: true,
      },
    ]);
  }
}
