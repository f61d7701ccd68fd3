import { useState } from 'preact/hooks';
import type { Summary } from '../answers.js';
import { fcfa, monthText, num, t } from '../i18n.js';
import { useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { statementLines } from '../statement.js';
import { Loading, useGet } from '../ui.js';
import { useWho } from '../who.js';
import { Select, Statement } from '../widgets.js';

/** The last twelve months, newest first. */
const months = (): string[] => {
  const now = new Date();
  return Array.from({ length: 12 }, (_, i) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7),
  );
};

/** A month's statement from the billing summary, printable as it is (print CSS hides the rest). */
export function Statements({ session }: { session: Session }) {
  const choices = months();
  const [month, setMonth] = useState(choices[0] as string);
  const reseller = session.claims.reseller_id ?? '';
  const s = useGet<Summary>(`/billing/summary?reseller_id=${reseller}&month=${month}`);
  // The month's sales, counted from its days (the summary counts Wi-Fi sessions, not sales).
  const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0))
    .toISOString()
    .slice(0, 10);
  const sales = useGet<{ days: { sales_count: number }[] }>(
    `/billing/sales?reseller_id=${reseller}&from=${month}-01&to=${last}`,
  );
  const name = useVlans().data?.items.find((v) => v.reseller_id === reseller)?.reseller_name;
  // The account's number as written at home (07 00 00 00 01), not E.164.
  const who = useWho();
  return (
    <div>
      <div class="no-print actions">
        <Select
          id="month"
          label="date"
          value={month}
          onValue={setMonth}
          options={choices.map((m) => [m, monthText(m)] as const)}
        />
        <button type="button" onClick={() => print()}>
          {t('print')}
        </button>
      </div>
      {!s.data ? (
        <Loading error={s.error} />
      ) : (
        <section class="card statement">
          <h2>{t('statement_of', { month: monthText(month) })}</h2>
          <p>
            {name ? `${name} · ` : ''}
            <span class="nowrap">{who.phone ?? session.msisdn}</span>
          </p>
          <Statement
            lines={[
              ...statementLines(s.data).map((l) => ({
                label: l.part ? <span class="part">{t(l.key)}</span> : t(l.key),
                value: l.minus ? `− ${fcfa(l.fcfa)}` : fcfa(l.fcfa),
                field: l.key,
                sum: l.sum,
              })),
              {
                label: t('sales_made'),
                value: sales.data ? num(sales.data.days.reduce((n, d) => n + d.sales_count, 0)) : '…',
                field: 'sales_count',
              },
              { label: t('sessions_count'), value: num(s.data.sessions_count), field: 'sessions_count' },
            ]}
          />
        </section>
      )}
    </div>
  );
}
