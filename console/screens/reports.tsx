import { useState } from 'preact/hooks';
import { saveCsv } from '../csv.js';
import { fcfa, type Key, lang, t } from '../i18n.js';
import { hotspotName, resellerOptions, useResellerVlans, useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { Loading, useGet } from '../ui.js';
import { Select, Statement } from '../widgets.js';

/** A breakdown's line as `GET /billing/report` answers it. */
interface Line {
  key: string;
  name: string;
  total_fcfa: number;
}
interface Report {
  from: string;
  to: string;
  total_fcfa: number;
  sales_count: number;
  provider_fee_fcfa: number;
  commission_fcfa: number;
  by_hotspot: Line[];
  by_forfait: Line[];
  by_agent: Line[];
  by_channel: Line[];
  days: { day: string; total_fcfa: number; sales_count: number }[];
}

const iso = (d: Date) => d.toISOString().slice(0, 10);
/** The ranges a reseller asks for most, from today (UTC, as the ledger's days). */
function presets(): [Key, string, string][] {
  const now = new Date();
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const today = iso(now);
  return [
    ['report_this_month', iso(new Date(Date.UTC(y, m, 1))), today],
    ['report_last_month', iso(new Date(Date.UTC(y, m - 1, 1))), iso(new Date(Date.UTC(y, m, 0)))],
    ['report_30_days', iso(new Date(now.getTime() - 29 * 86_400_000)), today],
    ['report_this_year', `${y}-01-01`, today],
  ];
}

/** A day as the reader's locale writes it (the ledger's days are UTC: so is the formatting). */
const dayText = (day: string) =>
  new Date(`${day}T12:00:00Z`).toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

const CHANNELS: Record<string, Key> = {
  mobile_money: 'ch_mobile_money',
  voucher: 'ch_voucher',
  cash: 'ch_cash',
  counter: 'ch_counter',
};

function Breakdown(props: { title: Key; lines: Line[]; testid: string; names?: (l: Line) => string }) {
  return (
    <div>
      <h3>{t(props.title)}</h3>
      {props.lines.length ? (
        <Statement
          testid={props.testid}
          lines={props.lines.map((l) => ({
            label: props.names?.(l) ?? l.name,
            value: fcfa(l.total_fcfa),
            field: l.key,
          }))}
        />
      ) : (
        <p>{t('nothing')}</p>
      )}
    </div>
  );
}

/**
 * Sales over any range of up to a year (`GET /billing/report`, from the ledger's days): the
 * totals, then by hotspot, forfait, agent and channel, and day by day; as CSV
 * (`GET /billing/report/export`), or printed as it stands (print CSS hides the rest). An
 * operator picks the reseller by its name first (the report, printed, names it).
 */
export function Reports({ session }: { session: Session }) {
  const isAdmin = session.claims.role === 'admin';
  // The operator's resellers to pick from; everyone's hotspots named as people know them.
  const vlans = useVlans();
  const resellers = resellerOptions(useResellerVlans(isAdmin).data?.items ?? []);
  const [picked, setPicked] = useState('');
  const reseller = session.claims.reseller_id ?? picked;
  const [first] = presets();
  const [range, setRange] = useState({ from: first?.[1] ?? '', to: first?.[2] ?? '' });
  const [shown, setShown] = useState(range);
  const query = `reseller_id=${reseller}&from=${shown.from}&to=${shown.to}`;
  const r = useGet<Report>(reseller ? `/billing/report?${query}` : undefined);
  const pickedName = isAdmin ? resellers.find(([id]) => id === reseller)?.[1] : undefined;
  const [wrong, setWrong] = useState(false);
  const show = (e: Event) => {
    e.preventDefault();
    // Said here in the reader's words; the API refuses the same (ERR_VALIDATION).
    const span = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000;
    const ok = range.from <= range.to && span < 366;
    setWrong(!ok);
    if (ok) setShown(range);
  };
  const download = () =>
    saveCsv(
      `/billing/report/export?${query}`,
      `${lang === 'fr' ? 'ventes' : 'sales'}-${shown.from}-${shown.to}.csv`,
    );
  return (
    <div>
      <form class="no-print card" onSubmit={show} novalidate>
        {isAdmin ? (
          <Select
            id="report-reseller"
            label="reseller"
            value={picked}
            onValue={setPicked}
            options={resellers}
            first={<option value="">{t('pick_reseller')}</option>}
          />
        ) : null}
        <div class="buttons presets">
          {presets().map(([key, from, to]) => (
            <button
              key={key}
              type="button"
              class="small secondary"
              onClick={() => {
                setRange({ from, to });
                setShown({ from, to });
              }}
            >
              {t(key)}
            </button>
          ))}
        </div>
        <div class="range">
          <label for="report-from">
            {t('report_from')}
            <input
              id="report-from"
              type="date"
              value={range.from}
              onInput={(e) => setRange({ ...range, from: e.currentTarget.value })}
            />
          </label>
          <label for="report-to">
            {t('report_to')}
            <input
              id="report-to"
              type="date"
              value={range.to}
              onInput={(e) => setRange({ ...range, to: e.currentTarget.value })}
            />
          </label>
        </div>
        <p class={wrong ? 'error' : 'hint'} role={wrong ? 'alert' : undefined}>
          {t('report_range')}
        </p>
        <div class="buttons">
          <button type="submit">{t('report_show')}</button>
          <button type="button" class="secondary" onClick={() => print()} disabled={!r.data}>
            {t('print')}
          </button>
          <button type="button" class="secondary" onClick={download} disabled={!r.data}>
            {t('report_csv')}
          </button>
        </div>
      </form>
      {wrong || !reseller ? (
        vlans.error ? (
          <Loading error={vlans.error} />
        ) : null
      ) : !r.data ? (
        <Loading error={r.error} />
      ) : (
        <section class="card statement report" data-testid="report">
          {pickedName ? <p class="report-who">{pickedName}</p> : null}
          <h2>{t('report_of', { from: dayText(r.data.from), to: dayText(r.data.to) })}</h2>
          <Statement
            testid="report-totals"
            lines={[
              { label: t('report_total'), value: fcfa(r.data.total_fcfa), field: 'total', sum: true },
              { label: t('report_count'), value: r.data.sales_count, field: 'count' },
              { label: t('report_fees'), value: fcfa(r.data.provider_fee_fcfa), field: 'fees' },
              { label: t('report_commission'), value: fcfa(r.data.commission_fcfa), field: 'commission' },
            ]}
          />
          <Breakdown
            title="by_hotspot"
            lines={r.data.by_hotspot}
            testid="report-hotspots"
            names={(l) => {
              if (l.key === '-') return t('report_no_hotspot');
              // The API names a hotspot with its NAS id; the screen by its name alone when known.
              const known = hotspotName(vlans.data?.items ?? [], l.key);
              return known === l.key ? l.name : known;
            }}
          />
          <Breakdown title="by_forfait" lines={r.data.by_forfait} testid="report-forfaits" />
          <Breakdown title="by_agent" lines={r.data.by_agent} testid="report-agents" />
          <Breakdown
            title="by_channel"
            lines={r.data.by_channel}
            testid="report-channels"
            names={(l) => (CHANNELS[l.key] ? t(CHANNELS[l.key] as Key) : l.key)}
          />
          <Breakdown
            title="report_days"
            testid="report-days"
            lines={r.data.days.map((d) => ({ key: d.day, name: dayText(d.day), total_fcfa: d.total_fcfa }))}
          />
        </section>
      )}
    </div>
  );
}
