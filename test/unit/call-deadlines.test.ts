import { afterEach, describe, expect, it } from 'vitest';
import { billingSettings } from '../../functions/billing/settings.js';
import { config, FUNCTION_TIMEOUT_S, resetConfig, worstCallMs } from '../../functions/core/config.js';

// A gateway call that times out on every attempt must still end before the function is killed:
// a function killed mid-retry answers its caller nothing (a 502 the portal cannot explain).

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetConfig();
});

describe('outbound calls fit the function timeout', () => {
  it('counts every attempt and the doubling back-off', () => {
    expect(worstCallMs(2500, 3, 200)).toBe(3 * 2500 + 200 + 400);
    expect(worstCallMs(1000, 1, 200)).toBe(1000);
  });

  it('by default: the gateway calls and the aggregator calls end a second before the timeout', () => {
    delete process.env.PROVIDER_TIMEOUT_MS;
    delete process.env.AGGREGATOR_TIMEOUT_MS;
    resetConfig();
    const b = billingSettings();
    expect(
      worstCallMs(b.PROVIDER_TIMEOUT_MS, b.PROVIDER_ATTEMPTS, b.AGGREGATOR_RETRY_BASE_MS),
    ).toBeLessThanOrEqual(FUNCTION_TIMEOUT_S * 1000 - 1000);
    expect(worstCallMs(config().AGGREGATOR_TIMEOUT_MS, 3, 200)).toBeLessThanOrEqual(
      FUNCTION_TIMEOUT_S * 1000 - 1000,
    );
  });

  it('refuses settings whose retries would outlive the function (5 s x 3, as it used to be)', () => {
    process.env.PROVIDER_TIMEOUT_MS = '5000';
    process.env.PROVIDER_ATTEMPTS = '3';
    resetConfig();
    expect(() => billingSettings()).toThrow(/Invalid configuration: PROVIDER_TIMEOUT_MS/);
    process.env.AGGREGATOR_TIMEOUT_MS = '5000';
    resetConfig();
    expect(() => config()).toThrow(/Invalid configuration: AGGREGATOR_TIMEOUT_MS/);
  });
});
