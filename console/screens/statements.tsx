import { useState } from 'preact/hooks';
import { fcfa, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Field, Loading, useGet } from '../ui.js';

interface Summary {
  month: string;
  currency: string;
  total_fcfa: number;
  sessions_count: number;
  split: { reseller_fcfa: number; operator_fcfa: number; provider_fee_fcfa: number };
}

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
  return (
    <div>
      <div class="no-print actions">
        <Field id="month" label="date">
          <select id="month" value={month} onChange={(e) => setMonth(e.currentTarget.value)}>
            {choices.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" onClick={() => print()}>
          {t('print')}
        </button>
      </div>
      {!s.data ? (
        <Loading error={s.error} />
      ) : (
        <section class="card statement">
          <h2>{t('statement_of', { month })}</h2>
          <p>
            {session.msisdn} · {reseller}
          </p>
          <table class="statement">
            <tbody>
              <tr>
                <th scope="row">{t('total')}</th>
                <td>{fcfa(s.data.total_fcfa)}</td>
              </tr>
              <tr>
                <th scope="row">{t('split_fees')}</th>
                <td>− {fcfa(s.data.split.provider_fee_fcfa)}</td>
              </tr>
              <tr>
                <th scope="row">{t('split_operator')}</th>
                <td>− {fcfa(s.data.split.operator_fcfa)}</td>
              </tr>
              <tr class="sum">
                <th scope="row">{t('split_reseller')}</th>
                <td>{fcfa(s.data.split.reseller_fcfa)}</td>
              </tr>
              <tr>
                <th scope="row">{t('sessions_count')}</th>
                <td>{s.data.sessions_count}</td>
              </tr>
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
