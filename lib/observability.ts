import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** The EMF namespace the functions write business metrics to (functions/core/log.ts). */
export const METRICS_NAMESPACE = 'HotspotPlatform';
const SERVICE = 'hotspot-api';

export interface ObservabilityProps {
  api: HttpApi;
  /** Every function of the service, by a readable name. */
  functions: Record<string, IFunction>;
  opsTopic: ITopic;
  /** The canary function, when the stack has one. */
  canary?: IFunction;
  /** Alarm when the API's 5xx share over 5 minutes exceeds this (default 5%). */
  api5xxRatePct?: number;
  /**
   * Alarm when OTP SMS are sent faster than this many an hour (checked per 15 minutes, at a
   * quarter of it): it fires before the platform's hourly OTP budget and the SMS spend alarm.
   */
  otpSentAlarmPerHour?: number;
}

const business = (name: string, label: string) =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE },
    statistic: 'Sum',
    period: Duration.minutes(5),
    label,
  });

/**
 * Alarms (API 5xx rate, Lambda errors and throttles, canary failing) to the operations topic, and
 * one dashboard with the API, the functions and the business metrics (OTPs sent, verifications,
 * payments completed, webhook refusals, VLANs allocated).
 */
export class Observability extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const notify = new actions.SnsAction(props.opsTopic);
    // Unless an alarm says otherwise: one 5-minute (or 15-minute) period at or over its threshold
    // pages, and a period without data is no breach.
    const alarm = (
      name: string,
      a: Pick<cloudwatch.AlarmProps, 'metric' | 'threshold' | 'alarmDescription'> &
        Partial<cloudwatch.AlarmProps>,
    ) => {
      const created = new cloudwatch.Alarm(this, name, {
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...a,
      });
      created.addAlarmAction(notify);
      created.addOkAction(notify);
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
      alarm(`LambdaThrottles${n}`, {
        metric: sumOver('t', `Lambda throttles (group ${n})`, group, throttlesOf),
        threshold: 1,
        alarmDescription: `A Lambda function of group ${n} was throttled`,
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
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 })],
      ],
    });
  }
}
