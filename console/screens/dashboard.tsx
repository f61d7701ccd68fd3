import { useEffect, useRef } from 'preact/hooks';
import type { Summary } from '../answers.js';
import { dayText, fcfa, num, t } from '../i18n.js';
import { hotspotName, useForfaits, useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { Card, Loading, useGet } from '../ui.js';
import { Alerts } from './alerts.js';

interface Day {
  day: string;
  total_fcfa: number;
  sales_count: number;
  by_hotspot: Record<string, number>;
  by_forfait: Record<string, number>;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last 30 days, every day present (zero when nothing sold), oldest first. */
function lastDays(days: Day[], today: string, n: number): { day: string; total: number }[] {
  const byDay = new Map(days.map((d) => [d.day, d.total_fcfa]));
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => {
    const day = isoDay(end - (n - 1 - i) * 86_400_000);
    return { day, total: byDay.get(day) ?? 0 };
  });
}

function sum(days: Day[], from: string, pick: (d: Day) => Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of days) {
    if (d.day < from) continue;
    for (const [k, v] of Object.entries(pick(d))) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/**
 * Sales by hotspot or forfait, each by its name; `-` is what no hotspot sold (an agent's cash
 * sale), said as such.
 */
function Breakdown(props: { title: string; values: Record<string, number>; name: (key: string) => string }) {
  const rows = Object.entries(props.values).sort((a, b) => b[1] - a[1]);
  return (
    <div>
      <h3>{props.title}</h3>
      {rows.length ? (
        <ul class="rows">
          {rows.map(([k, v]) => (
            <li key={k}>
              <span>{k === '-' ? t('cash_no_hotspot') : props.name(k)}</span> <strong>{fcfa(v)}</strong>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('nothing')}</p>
      )}
    </div>
  );
}

function Chart(props: { series: { day: string; total: number }[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let chart: { destroy(): void } | undefined;
    let live = true;
    void import('../chart.js').then(({ drawSales }) => {
      if (live && ref.current)
        chart = drawSales(ref.current, props.series, t('sales'), { day: dayText, num });
    });
    return () => {
      live = false;
      chart?.destroy();
    };
  }, [props.series]);
  return <div ref={ref} class="chart" role="img" aria-label={t('chart_title')} />;
}

export function Dashboard({ session }: { session: Session }) {
  const reseller = session.claims.reseller_id ?? '';
  const now = Date.now();
  const today = isoDay(now);
  const month = today.slice(0, 7);
  const from = isoDay(now - 29 * 86_400_000) < `${month}-01` ? isoDay(now - 29 * 86_400_000) : `${month}-01`;
  const sales = useGet<{ days: Day[] }>(`/billing/sales?reseller_id=${reseller}&from=${from}&to=${today}`);
  const summary = useGet<Summary>(`/billing/summary?reseller_id=${reseller}&month=${month}`);
  const live = useGet<{ sessions_active: number }>('/monitoring/overview');
  const forfaits = useForfaits(session, 'all');
  const vlans = useVlans();

  if (!sales.data) return <Loading error={sales.error} />;
  const days = sales.data.days;
  const weekFrom = isoDay(now - 6 * 86_400_000);
  const total = (start: string) => days.filter((d) => d.day >= start).reduce((n, d) => n + d.total_fcfa, 0);
  const names = Object.fromEntries((forfaits.data?.items ?? []).map((f) => [f.id, f.name]));
  return (
    <div class="grid">
      <Card title={t('sales')}>
        <dl class="kpis">
          <div>
            <dt>{t('today')}</dt>
            <dd data-testid="sales-today">{fcfa(total(today))}</dd>
          </div>
          <div>
            <dt>{t('week')}</dt>
            <dd data-testid="sales-week">{fcfa(total(weekFrom))}</dd>
          </div>
          <div>
            <dt>{t('month')}</dt>
            <dd data-testid="sales-month">{fcfa(total(`${month}-01`))}</dd>
          </div>
          <div>
            <dt>{t('live_sessions')}</dt>
            <dd data-testid="live-now">{live.data ? live.data.sessions_active : '…'}</dd>
          </div>
        </dl>
        <Chart series={lastDays(days, today, 30)} />
      </Card>
      <Card title={t('month')}>
        <Breakdown
          title={t('by_hotspot')}
          values={sum(days, `${month}-01`, (d) => d.by_hotspot)}
          name={(nas) => hotspotName(vlans.data?.items ?? [], nas)}
        />
        <Breakdown
          title={t('by_forfait')}
          values={sum(days, `${month}-01`, (d) => d.by_forfait)}
          name={(id) => names[id] ?? t('forfait')}
        />
      </Card>
      <Card title={t('split_title')}>
        {summary.data ? (
          <dl class="split">
            <div>
              <dt>{t('total')}</dt>
              <dd data-testid="summary-total">{fcfa(summary.data.total_fcfa)}</dd>
            </div>
            <div>
              <dt>{t('split_reseller')}</dt>
              <dd>{fcfa(summary.data.split.reseller_fcfa)}</dd>
            </div>
            <div>
              <dt>{t('split_operator')}</dt>
              <dd>{fcfa(summary.data.split.operator_fcfa)}</dd>
            </div>
            <div>
              <dt>{t('split_fees')}</dt>
              <dd>{fcfa(summary.data.split.provider_fee_fcfa)}</dd>
            </div>
          </dl>
        ) : (
          <Loading error={summary.error} />
        )}
      </Card>
      <Card title={t('alerts')}>
        <Alerts />
      </Card>
    </div>
  );
}
