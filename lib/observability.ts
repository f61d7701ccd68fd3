// Alarms and the dashboard: what operations are paged for, from the functions' metrics and AWS's.

import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type Pager, pagingAlarm } from './alarms.js';

/** The EMF namespace the functions write business metrics to (functions/core/log.ts). */
const METRICS_NAMESPACE = 'HotspotPlatform';
const SERVICE = 'hotspot-api';

interface ObservabilityProps {
  api: HttpApi;
  /** The API's access log group (JSON lines with `status`): 429s are counted from it. */
  accessLogs: ILogGroup;
  /** The single table and its index names: throttles and transaction conflicts. */
  table: ITable;
  indexNames: readonly string[];
  /**
   * The account's Lambda concurrency quota: alarm at 80 % of it (default 1,000, what a
   * production account is raised to; the model's peak needs about 110).
   */
  concurrencyQuota?: number;
  /** Minutes after which reconciliation expires a pending payment: an older one means it fell behind. */
  paymentAbandonMinutes?: number;
  /** Seconds after which the sweep closes a silent session: an older last report means it fell behind. */
  sessionSilentAfterS?: number;
  /** Every function of the service, by a readable name: each pages on its errors. */
  functions: Record<string, IFunction>;
  /**
   * The functions with a reserved concurrency of their own (the function URLs): each pages
   * when it is throttled, which its own cap does, not the account's.
   */
  reservedFunctions?: Record<string, IFunction>;
  opsTopic: ITopic;
  /** The alarms' names: `<prefix>-<Name>` (the cell's stack name). */
  alarmPrefix: string;
  /**
   * Whether this cell alarms on the account's own metrics (SMS spend and delivery, the account's
   * Lambda concurrency and throttles): one cell per account and stage does (lib/settings.ts),
   * not every cell, each of which would page for the others.
   */
  accountAlarms: boolean;
  /** The month's SMS spend (USD) that pages, with `accountAlarms`. */
  smsSpendAlarmUsd?: number;
  /**
   * The table's stream consumers (functions/streams.ts): each pages when its records wait too
   * long (iterator age) and when a batch reached its dead-letter queue.
   */
  streamConsumers?: { name: string; fn: IFunction; deadLetters: IQueue }[];
  /** The canary function, when the stack has one. */
  canary?: IFunction;
  /**
   * The cell (CELL_ID): the functions write the platform's own metrics with a `cell` dimension
   * (functions/core/metrics.ts), so one cell's alarms read its own counts, not every cell's in
   * the account.
   */
  cell?: string;
  /**
   * The stage (STAGE): a dimension of the platform's metrics too, so that a cell's staging and
   * production in one account read their own counts.
   */
  stage?: string;
  /** Alarm when the API's 5xx share over 5 minutes exceeds this (default 5%). */
  api5xxRatePct?: number;
  /**
   * Alarm when OTP SMS are sent faster than this many an hour (checked per 15 minutes, at a
   * quarter of it): it fires before the platform's hourly OTP budget and the SMS spend alarm.
   */
  otpSentAlarmPerHour?: number;
}

/**
 * The dimensions the functions and the front's service write the platform's own metrics with
 * (functions/core/metrics-emf.mts: CELL_ID and STAGE).
 */
export const ourDimensions = (cell?: string, stage?: string): Record<string, string> => ({
  service: SERVICE,
  ...(cell ? { cell } : {}),
  ...(stage ? { stage } : {}),
});

/** One of the platform's own metrics of a cell, by statistic and period. */
const oursIn = (
  dimensionsMap: Record<string, string>,
  name: string,
  label: string,
  statistic: string,
  minutes: number,
) =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap,
    statistic,
    period: Duration.minutes(minutes),
    label,
  });

/**
 * The cell's alarms (docs/monitoring.md has a row for each: what pages, what it means, what to
 * do first), each paging the operations topic when it fires and when it clears, and one
 * dashboard with the API, the functions, the RADIUS front and the business metrics.
 */
export class Observability extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const dims = ourDimensions(props.cell, props.stage);
    const ours = (name: string, label: string, statistic: string, minutes: number) =>
      oursIn(dims, name, label, statistic, minutes);
    /** A business count: its sum over five minutes. */
    const business = (name: string, label: string) => ours(name, label, 'Sum', 5);
    const pager: Pager = { prefix: props.alarmPrefix, topic: props.opsTopic };
    // Unless an alarm says otherwise: one 5-minute (or 15-minute) period at or over its threshold
    // pages, and a period without data is no breach (nothing reported is nothing wrong: a cell
    // whose routers and subscribers have not come yet pages for nothing).
    const alarm = (
      name: string,
      a: Pick<cloudwatch.AlarmProps, 'metric' | 'threshold' | 'alarmDescription'> &
        Partial<Omit<cloudwatch.AlarmProps, 'alarmName'>>,
    ) => {
      const created = pagingAlarm(this, pager, name, {
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...a,
      });
      this.alarms.push(created);
      return created;
    };

    const requests = props.api.metricCount({ period: Duration.minutes(5), statistic: 'Sum' });
    const errors5xx = props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' });
    const rate5xx = new cloudwatch.MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: errors5xx },
      period: Duration.minutes(5),
      label: 'API 5xx %',
    });
    alarm('Api5xxRate', {
      metric: rate5xx,
      threshold: props.api5xxRatePct ?? 5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      alarmDescription: 'More than 5% of API requests answered 5xx over 5 minutes',
    });

    const fns = Object.values(props.functions);
    const sumOver = (
      prefix: string,
      label: string,
      group: IFunction[],
      pick: (fn: IFunction) => cloudwatch.IMetric,
    ) => {
      const usingMetrics: Record<string, cloudwatch.IMetric> = {};
      group.forEach((fn, i) => {
        usingMetrics[`${prefix}${i}`] = pick(fn);
      });
      return new cloudwatch.MathExpression({
        expression: group.length ? group.map((_, i) => `${prefix}${i}`).join(' + ') : '0',
        usingMetrics,
        period: Duration.minutes(5),
        label,
      });
    };
    const errorsOf = (fn: IFunction) => fn.metricErrors({ period: Duration.minutes(5) });
    const throttlesOf = (fn: IFunction) => fn.metricThrottles({ period: Duration.minutes(5) });
    const lambdaErrors = sumOver('e', 'Lambda errors', fns, errorsOf);
    const lambdaThrottles = sumOver('t', 'Lambda throttles', fns, throttlesOf);
    // An alarm's math may hold at most 10 metrics: one alarm per group of 10 functions.
    for (let start = 0, n = 1; start < fns.length; start += 10, n++) {
      const group = fns.slice(start, start + 10);
      alarm(`LambdaErrors${n}`, {
        metric: sumOver('e', `Lambda errors (group ${n})`, group, errorsOf),
        threshold: 5,
        alarmDescription: `Five or more Lambda errors in 5 minutes across functions group ${n}`,
      });
    }
    // A throttle is the account's concurrency running out (the account's alarm below), or a
    // function's own reservation: only those are watched one by one.
    const reserved = Object.values(props.reservedFunctions ?? {});
    for (let start = 0, n = 1; start < reserved.length; start += 10, n++) {
      const group = reserved.slice(start, start + 10);
      alarm(`LambdaThrottles${n}`, {
        metric: sumOver('t', `Lambda throttles (reserved, group ${n})`, group, throttlesOf),
        threshold: 1,
        alarmDescription: `A function with a reserved concurrency (a function URL, group ${n}) was throttled: its reservation is below its traffic`,
      });
    }

    // SMS are money: a login flood shows here within 15 minutes, well before the month's spend.
    if (props.otpSentAlarmPerHour) {
      const per15 = Math.ceil(props.otpSentAlarmPerHour / 4);
      alarm('OtpSendRate', {
        metric: business('OtpSent', 'OTPs sent').with({ period: Duration.minutes(15) }),
        threshold: per15,
        alarmDescription: `${per15} or more OTP SMS sent in 15 minutes (${props.otpSentAlarmPerHour} an hour): an SMS flood?`,
      });
    }

    // Money: a provider that says "paid" for a payment we closed, or notifications that fail
    // their signature (a leaked or rotated key, or someone forging them), need a person.
    alarm('PaymentMismatch', {
      metric: business('PaymentMismatch', 'Payment mismatches').with({ period: Duration.minutes(15) }),
      threshold: 1,
      alarmDescription: 'A provider reported a payment paid that was refused, expired or of another amount',
    });
    alarm('NotificationsRefused', {
      metric: business('NotificationRefused', 'Refused notifications').with({ period: Duration.minutes(15) }),
      threshold: 5,
      alarmDescription:
        'Five or more payment notifications refused (signature, replay, amount) in 15 minutes',
    });

    // The canary counts a failed run as CanaryFailed; two failed runs in 15 minutes page.
    alarm('CanaryFailing', {
      metric: business('CanaryFailed', 'Canary failed runs').with({ period: Duration.minutes(15) }),
      threshold: 2,
      alarmDescription: 'The canary failed two runs in 15 minutes: subscribers may not get online',
    });
    if (props.canary) {
      alarm('CanaryErrors', {
        metric: props.canary.metricErrors({ period: Duration.minutes(15) }),
        threshold: 1,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        alarmDescription: 'The canary function itself failed or did not run',
      });
    }

    // ---- limits from the model (docs/scale.md): each pages before subscribers notice ----
    // 429s: API Gateway has no metric of its own for them; the access log has every status.
    const api429Name = ['Api429', props.stage, props.cell].filter(Boolean).join('-');
    new MetricFilter(this, 'Api429Filter', {
      logGroup: props.accessLogs,
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: METRICS_NAMESPACE,
      // A filter's dimensions come from the log's own fields: the stage and cell are in the name.
      metricName: api429Name,
      metricValue: '1',
    });
    const api429 = new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: api429Name,
      statistic: 'Sum',
      period: Duration.minutes(5),
      label: 'API 429s',
    });
    alarm('Api429s', {
      metric: api429,
      threshold: 100,
      alarmDescription:
        '100 or more requests refused by a throttle (429) in 5 minutes: a flood, or a limit below the traffic',
    });
    const tableName = props.table.tableName;
    const dynamo = (metricName: string, dims: Record<string, string>, statistic = 'Sum') =>
      new cloudwatch.Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: tableName, ...dims },
        statistic,
        period: Duration.minutes(5),
      });
    // Read and write throttles of the table and of each GSI. One alarm's math expression takes
    // at most 10 metrics: the table and its first four GSIs make the first alarm, every further
    // five GSIs another (`DynamoThrottles2`, ...).
    const pairs: [string, Record<string, string>][] = [
      ['table', {}],
      ...props.indexNames.map((index): [string, Record<string, string>] => [
        index,
        { GlobalSecondaryIndexName: index },
      ]),
    ];
    for (let group = 0; group * 5 < pairs.length; group++) {
      const throttles: Record<string, cloudwatch.IMetric> = {};
      pairs.slice(group * 5, group * 5 + 5).forEach(([, dims], i) => {
        throttles[`r${i}`] = dynamo('ReadThrottleEvents', dims);
        throttles[`w${i}`] = dynamo('WriteThrottleEvents', dims);
      });
      const names = pairs.slice(group * 5, group * 5 + 5).map(([name]) => name);
      alarm(group === 0 ? 'DynamoThrottles' : `DynamoThrottles${group + 1}`, {
        metric: new cloudwatch.MathExpression({
          expression: Object.keys(throttles).join(' + '),
          usingMetrics: throttles,
          period: Duration.minutes(5),
          label: `DynamoDB throttle events (${names.join(', ')})`,
        }),
        threshold: 1,
        alarmDescription: `DynamoDB throttled ${names.join(', ')} (a hot partition, or GSI back-pressure)`,
      });
    }
    alarm('TransactionConflicts', {
      metric: dynamo('TransactionConflict', {}),
      // A code's own items conflict now and then (two devices at once); a shared item would do it
      // all the time (docs/scale.md: no shared item in a hot transaction).
      threshold: 300,
      alarmDescription: '300 or more transaction conflicts in 5 minutes: an item shared by many writers?',
    });
    // ---- the account's own metrics: one cell per account and stage alarms on them ----
    if (props.accountAlarms) {
      // An account-wide metric: no dimension, every cell's (and every stage's) in it.
      const account = (namespace: string, metricName: string, statistic: string, period: Duration) =>
        new cloudwatch.Metric({ namespace, metricName, statistic, period });
      const quota = props.concurrencyQuota ?? 1000;
      alarm('LambdaConcurrency', {
        metric: account('AWS/Lambda', 'ConcurrentExecutions', 'Maximum', Duration.minutes(1)),
        threshold: Math.floor(quota * 0.8),
        evaluationPeriods: 3,
        alarmDescription: `Lambda concurrency of the account at 80 % of its quota (${quota}) for 3 minutes (every cell of the account)`,
      });
      alarm('LambdaThrottlesAccount', {
        metric: account('AWS/Lambda', 'Throttles', 'Sum', Duration.minutes(5)),
        threshold: 10,
        alarmDescription:
          'Ten or more Lambda invocations throttled in 5 minutes across the account (every cell of the account)',
      });
      alarm('SmsFailures', {
        metric: account('AWS/SNS', 'SMSSuccessRate', 'Average', Duration.minutes(15)),
        threshold: 0.9,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        alarmDescription:
          "Fewer than 90 % of the account's SMS delivered over 15 minutes: subscribers get no code (every cell of the account)",
      });
      const spend = props.smsSpendAlarmUsd ?? 50;
      alarm('SmsSpend', {
        metric: account('AWS/SNS', 'SMSMonthToDateSpentUSD', 'Maximum', Duration.hours(1)),
        threshold: spend,
        alarmDescription: `SMS spend of the account this month reached ${spend} USD (every cell of the account)`,
      });
    }
    const oldest = (name: string, label: string) => ours(name, label, 'Maximum', 15);
    const abandonS = (props.paymentAbandonMinutes ?? 120) * 60;
    alarm('OldestPendingPayment', {
      metric: oldest('OldestPendingPaymentAgeS', 'Oldest pending payment (s)'),
      threshold: abandonS + 30 * 60,
      alarmDescription: `A payment pending for more than ${abandonS / 60 + 30} minutes: reconciliation falls behind`,
    });
    const silentS = props.sessionSilentAfterS ?? 660;
    alarm('OldestOpenSession', {
      metric: oldest('OldestOpenSessionReportAgeS', 'Oldest open session report (s)'),
      threshold: silentS + 30 * 60,
      alarmDescription: `An open session silent for more than ${Math.round(silentS / 60) + 30} minutes: the sweep falls behind`,
    });

    // A country of the cell whose hotspots fell silent with sessions open (functions/radius/link-watch.ts):
    // its international link is cut. The sweep leaves its sessions open meanwhile, so the
    // OldestOpenSession alarm follows it some 30 minutes later.
    alarm('CountryLinkCut', {
      metric: ours('CountriesCut', 'Countries cut', 'Maximum', 5),
      threshold: 1,
      alarmDescription:
        "A country's hotspots went silent with sessions open: its international link is cut (docs/outage.md)",
    });

    // ---- the RADIUS front refusing everyone (functions/front/service.ts counts its answers) ----
    // A front whose service fails inside (its role, DynamoDB, a bug) refuses every login while
    // packets flow and its targets stay healthy. Its service counts each login call and each
    // refusal by reason, once a minute; three minutes in a row page, within five of the start.
    const perMinute = (name: string, label: string) => ours(name, label, 'Sum', 1);
    const logins = perMinute('FrontLoginCalls', 'Login calls');
    const refusedCode = perMinute('FrontRefusedUnknownCode', 'Refused: unknown code');
    const refusedRouter = perMinute('FrontRefusedRouter', 'Refused: router');
    const refusedOther = perMinute('FrontRefusedOther', 'Refused: expired, used up, device limit...');
    const loginErrors = perMinute('FrontLoginErrors', 'Refused: internal error');
    const accounting = perMinute('FrontAccountingCalls', 'Accounting calls');
    const accountingErrors = perMinute('FrontAccountingErrors', 'Accounting errors');
    const minimumCalls = 20;
    alarm('FrontRefusingLogins', {
      metric: new cloudwatch.MathExpression({
        expression: `IF(logins >= ${minimumCalls}, 100 * (code + router + other + errors) / logins, 0)`,
        usingMetrics: {
          logins,
          code: refusedCode,
          router: refusedRouter,
          other: refusedOther,
          errors: loginErrors,
        },
        period: Duration.minutes(1),
        label: 'Logins refused (%)',
      }),
      threshold: 80,
      evaluationPeriods: 3,
      alarmDescription: `The RADIUS front refused 80 % or more of at least ${minimumCalls} login calls a minute for 3 minutes (its refusals by reason are on the dashboard)`,
    });
    alarm('FrontErrors', {
      metric: new cloudwatch.MathExpression({
        expression: `IF(logins + acct >= ${minimumCalls}, 100 * (loginErrors + acctErrors) / (logins + acct), 0)`,
        usingMetrics: { logins, acct: accounting, loginErrors, acctErrors: accountingErrors },
        period: Duration.minutes(1),
        label: 'Front errors (%)',
      }),
      threshold: 5,
      evaluationPeriods: 3,
      alarmDescription:
        "5 % or more of the RADIUS front's calls failed inside its service for 3 minutes: logins are refused, reports resent",
    });

    // A stream consumer that falls behind leaves counts stale (a new session's open count waits
    // for it); one that gives up on a batch parks it in its dead-letter queue.
    for (const c of props.streamConsumers ?? []) {
      alarm(`${c.name}IteratorAge`, {
        metric: c.fn.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
        threshold: 60_000,
        alarmDescription: `${c.name}: stream records waited more than a minute for the consumer (counts are that stale)`,
      });
      alarm(`${c.name}DeadLetters`, {
        metric: c.deadLetters.metricApproximateNumberOfMessagesVisible({
          statistic: 'Maximum',
          period: Duration.minutes(5),
        }),
        threshold: 1,
        alarmDescription: `${c.name}: a batch of stream records was given up on (its dead-letter queue)`,
      });
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(6),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'API requests and 5xx',
            left: [requests, errors5xx],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'API latency p50 / p99',
            left: [
              props.api.metricLatency({ statistic: 'p50', period: Duration.minutes(5) }),
              props.api.metricLatency({ statistic: 'p99', period: Duration.minutes(5) }),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Lambda errors and throttles',
            left: [lambdaErrors, lambdaThrottles],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Login',
            left: [
              business('OtpSent', 'OTPs sent'),
              business('OtpVerified', 'Verifications'),
              business('OtpRejected', 'Wrong codes'),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Money',
            left: [
              business('PaymentCompleted', 'Payments completed'),
              business('PaymentFailed', 'Payments failed'),
              business('WebhookRefused', 'Webhook refusals'),
              business('VoucherRedeemed', 'Vouchers redeemed'),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Network and canary',
            left: [
              business('VlanAllocated', 'VLANs allocated'),
              business('CanaryFailed', 'Canary failed runs'),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'RADIUS front: logins and refusals by reason (a minute)',
            left: [logins, refusedCode, refusedRouter, refusedOther, loginErrors],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'RADIUS front: accounting and errors (a minute)',
            left: [accounting, accountingErrors],
            width: 12,
          }),
        ],
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 })],
      ],
    });
  }
}
