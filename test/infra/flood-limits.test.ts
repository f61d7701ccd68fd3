import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';
import { inspect } from './template.js';

/** The deploy-time guards against floods: route throttles, reserved concurrency, the OTP alarm. */

const synth = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new HotspotStack(
    app,
    'Flood',
    settingsFromContext((k) => app.node.tryGetContext(k)),
  );
  return Template.fromStack(stack);
};

let template: Template;
beforeAll(() => {
  template = synth({ throttleRate: 50, throttleBurst: 100 });
});

describe('flood limits in the stack', () => {
  it('a flood of OTP requests is throttled at the stage, well below the API’s default', () => {
    const [[, stage] = []] = inspect(template).ofType('AWS::ApiGatewayV2::Stage');
    const settings = stage?.Properties.RouteSettings as Record<
      string,
      { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
    >;
    expect(settings['POST /api/v1/auth/otp/request']).toEqual({
      ThrottlingRateLimit: 30,
      ThrottlingBurstLimit: 60,
    });
    expect(settings['POST /api/v1/auth/otp/verify']).toEqual({
      ThrottlingRateLimit: 30,
      ThrottlingBurstLimit: 60,
    });
    expect(stage?.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 100,
    });
  });

  it('sizes the high-volume routes from the peak model (about twice it), above the stage default', () => {
    const [[, stage] = []] = inspect(template).ofType('AWS::ApiGatewayV2::Stage');
    const settings = stage?.Properties.RouteSettings as Record<string, Record<string, number>>;
    // docs/scale.md: payment status about 450/s at peak. (The routers' RADIUS accounting and
    // logins are not the API's: the front's service answers them in its task, no API Gateway
    // throttle on them. An edge's forwarded calls are: a whole country failing over to its edge
    // must pass, at the national peak.)
    const peak: Record<string, number> = {
      'GET /api/v1/payments/{id}/status': 450,
      'POST /api/v1/auth/otp/request': 15,
      'POST /api/v1/auth/device/session': 35,
      'POST /api/v1/edge/radius/accounting': 767,
      'POST /api/v1/edge/radius/authorize': 50,
      'POST /api/v1/edge/radius/post-auth': 50,
      'POST /api/v1/edge/radius/client': 167,
    };
    for (const [key, rate] of Object.entries(peak)) {
      expect(settings[key]?.ThrottlingRateLimit, key).toBeGreaterThanOrEqual(1.5 * rate);
      expect(settings[key]?.ThrottlingBurstLimit, key).toBeGreaterThanOrEqual(
        settings[key]?.ThrottlingRateLimit ?? 0,
      );
    }
    expect(settings['GET /api/v1/payments/{id}/status']?.ThrottlingRateLimit).toBeGreaterThan(50);
    expect(Object.keys(settings).filter((k) => k.includes('/api/v1/radius/'))).toEqual([]);
  });

  it('resizes a route throttle from context', () => {
    const resized = synth({ paymentStatusThrottleRate: 3000, paymentStatusThrottleBurst: 6000 });
    const [[, stage] = []] = inspect(resized).ofType('AWS::ApiGatewayV2::Stage');
    const settings = stage?.Properties.RouteSettings as Record<string, Record<string, number>>;
    expect(settings['GET /api/v1/payments/{id}/status']).toEqual({
      ThrottlingRateLimit: 3000,
      ThrottlingBurstLimit: 6000,
    });
  });

  it('a flood on a webhook function URL cannot take the concurrency of the API’s functions', () => {
    const urls = routes.filter((r) => r.expose === 'function-url');
    expect(urls.length).toBeGreaterThan(0);
    const fns = inspect(template).ofType('AWS::Lambda::Function');
    for (const r of urls) {
      const found = fns.find(([, f]) => String(f.Properties.Description).startsWith(`${routeKey(r)}:`));
      expect(found?.[1].Properties.ReservedConcurrentExecutions, routeKey(r)).toBe(30);
    }
    // The API's own functions are not capped: their routes' throttles bound them.
    const api = fns.filter(([, f]) =>
      String(f.Properties.Description).startsWith('POST /api/v1/auth/otp/request:'),
    );
    expect(api).toHaveLength(1);
    expect(api[0]?.[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('an account still at the new-account concurrency quota can opt out of the reservation', () => {
    const fns = inspect(synth({ webhookReservedConcurrency: 0 })).ofType('AWS::Lambda::Function');
    expect(fns.every(([, f]) => f.Properties.ReservedConcurrentExecutions === undefined)).toBe(true);
  });

  it('an SMS flood pages operations within 15 minutes, before the platform budget and the spend alarm', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        Match.objectLike({
          MetricStat: {
            Metric: Match.objectLike({ MetricName: 'OtpSent', Namespace: 'HotspotPlatform' }),
            Period: 900,
            Stat: 'Sum',
          },
        }),
      ],
      // Half the platform's 2000 an hour, per quarter hour.
      Threshold: 250,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: Match.anyValue(),
    });
  });

  it.each([
    ['PaymentMismatch', 1],
    ['NotificationRefused', 5],
  ])('pages operations when %s reaches %i in 15 minutes (money needs a person)', (metric, threshold) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        Match.objectLike({
          MetricStat: {
            Metric: Match.objectLike({ MetricName: metric, Namespace: 'HotspotPlatform' }),
            Period: 900,
            Stat: 'Sum',
          },
        }),
      ],
      Threshold: threshold,
      AlarmActions: Match.anyValue(),
    });
  });

  it('the OTP budgets given in context reach the functions, and the alarm follows the platform budget', () => {
    const t = synth({ otpRequestsPerHour: 400, otpRequestsPerAddressPerHour: 5 });
    const [[, fn] = []] = inspect(t)
      .ofType('AWS::Lambda::Function')
      .filter(([, f]) => String(f.Properties.Description).startsWith('POST /api/v1/auth/otp/request:'));
    const env = fn?.Properties.Environment as { Variables: Record<string, string> } | undefined;
    expect(env?.Variables).toMatchObject({
      OTP_REQUESTS_PER_HOUR: '400',
      OTP_REQUESTS_PER_ADDRESS_PER_HOUR: '5',
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        Match.objectLike({
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'OtpSent' }) }),
        }),
      ],
      Threshold: 50,
    });
  });
});
