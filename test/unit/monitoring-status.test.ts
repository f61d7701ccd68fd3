import { describe, expect, it } from 'vitest';
import { CHECK_NAMES, type CheckName } from '../../functions/monitoring/checks/types.js';
import {
  linkNotice,
  overallStatus,
  percentages,
  publicStatus,
  windowStart,
} from '../../functions/monitoring/status.js';
import type { CanaryState } from '../../functions/store/canary.js';

const results = (failing: CheckName[]) =>
  CHECK_NAMES.map((name) => ({ name, success: !failing.includes(name) }));

describe('overall_status rules', () => {
  it('is healthy when all five checks pass', () => {
    expect(overallStatus(results([]))).toBe('healthy');
  });

  it.each([
    [['dns_sinkhole']],
    [['portal_access']],
    [['data_transfer']],
    [['dns_sinkhole', 'portal_access', 'data_transfer']],
  ] as CheckName[][][])('is degraded when only %j fail (subscribers can still log in)', (failing) => {
    expect(overallStatus(results(failing))).toBe('degraded');
  });

  it.each([[['api_health']], [['radius_auth']], [['dns_sinkhole', 'radius_auth']]] as CheckName[][][])(
    'is down when %j fail',
    (failing) => {
      expect(overallStatus(results(failing))).toBe('down');
    },
  );

  it('is down when every check fails', () => {
    expect(overallStatus(results([...CHECK_NAMES]))).toBe('down');
  });

  it('ignores a non-critical check with no target, and counts a critical one with none as failed', () => {
    const unconfigured = (names: CheckName[]) =>
      CHECK_NAMES.map((name) =>
        names.includes(name) ? { name, success: false, error: 'not_configured' } : { name, success: true },
      );
    expect(overallStatus(unconfigured(['dns_sinkhole', 'portal_access', 'data_transfer']))).toBe('healthy');
    expect(overallStatus(unconfigured(['radius_auth']))).toBe('down');
  });
});

describe('a component whose check is not configured', () => {
  it('shows unknown on the public status page, never down', () => {
    const now = Date.parse('2025-03-01T12:01:00.000Z');
    const s = publicStatus(
      {
        last_run: '2025-03-01T12:00:00.000Z',
        run_id: 'r',
        overall_status: 'healthy',
        consecutive_fails: 0,
        tests: CHECK_NAMES.map((name) => ({
          name,
          success: name !== 'dns_sinkhole',
          latency_ms: 1,
          ...(name === 'dns_sinkhole' ? { error: 'not_configured' } : {}),
        })),
      } as CanaryState,
      now,
      15 * 60_000,
    );
    expect(s.components.find((c) => c.name === 'dns_filtering')?.status).toBe('unknown');
    expect(s.components.find((c) => c.name === 'wifi_login')?.status).toBe('operational');
    expect(s.status).toBe('operational');
  });
});

const state = (over: Partial<CanaryState> = {}): CanaryState => ({
  last_run: '2025-03-01T12:00:00.000Z',
  run_id: 'r',
  overall_status: 'degraded',
  consecutive_fails: 2,
  tests: CHECK_NAMES.map((name) => ({
    name,
    success: name !== 'portal_access',
    latency_ms: 12,
    detail: 'connect ECONNREFUSED 10.20.0.5:443',
  })),
  ...over,
});

describe('the public status', () => {
  const now = Date.parse('2025-03-01T12:03:00.000Z');

  it('translates the latest run into operational|degraded|down and one status per component', () => {
    const s = publicStatus(state(), now, 15 * 60_000);
    expect(s.status).toBe('degraded');
    expect(s.updated_at).toBe('2025-03-01T12:00:00.000Z');
    expect(s.components).toContainEqual({ name: 'captive_portal', status: 'down' });
    expect(s.components).toContainEqual({ name: 'wifi_login', status: 'operational' });
    expect(s.components).toHaveLength(5);
  });

  it('says operational for a healthy run', () => {
    expect(publicStatus(state({ overall_status: 'healthy' }), now, 15 * 60_000).status).toBe('operational');
  });

  it('carries nothing internal: no hosts, latencies, details or failure counts', () => {
    const text = JSON.stringify(publicStatus(state(), now, 15 * 60_000));
    for (const internal of [
      '10.20.0.5',
      'ECONNREFUSED',
      'latency',
      'consecutive',
      'radius',
      'dns_sinkhole',
    ]) {
      expect(text).not.toContain(internal);
    }
    expect(Object.keys(publicStatus(state(), now, 1e9)).sort()).toEqual([
      'components',
      'status',
      'updated_at',
    ]);
  });

  it('does not trust a run older than the staleness limit, nor the absence of runs', () => {
    const stale = publicStatus(state({ overall_status: 'healthy' }), now + 16 * 60_000, 15 * 60_000);
    expect(stale.status).toBe('degraded');
    expect(stale.components.every((c) => c.status === 'unknown')).toBe(true);
    expect(publicStatus(undefined, now, 15 * 60_000).status).toBe('degraded');
  });
});

describe('uptime and SLA percentages', () => {
  it('counts healthy runs for uptime and runs that were not down for the SLA, over all days', () => {
    const p = percentages([
      { day: '2025-03-01', runs: 288, healthy_runs: 288, up_runs: 288 },
      { day: '2025-03-02', runs: 100, healthy_runs: 70, up_runs: 90 },
    ]);
    expect(p.runs).toBe(388);
    expect(p.uptime_pct).toBe(Math.round((358 / 388) * 10_000) / 100);
    expect(p.sla_pct).toBe(Math.round((378 / 388) * 10_000) / 100);
  });

  it('answers 0 when there is no run to prove any uptime', () => {
    expect(percentages([])).toEqual({ uptime_pct: 0, sla_pct: 0, runs: 0 });
  });

  it('starts the 30-day window 29 days before today (UTC)', () => {
    expect(windowStart(Date.parse('2025-03-30T23:59:00Z'))).toBe('2025-03-01');
  });
});

describe("a country's line on the status page while its link is cut", () => {
  it("reads in French, at the country's own time", () => {
    const since = '2026-03-14T14:02:00.000Z';
    expect(linkNotice({ country: 'CI', since }).message).toBe(
      "Côte d'Ivoire : liaison internationale coupée depuis 14:02, les codes déjà achetés fonctionnent",
    );
    // Cameroon is an hour ahead of Abidjan.
    expect(linkNotice({ country: 'CM', since }).message).toBe(
      'Cameroun : liaison internationale coupée depuis 15:02, les codes déjà achetés fonctionnent',
    );
  });
});
