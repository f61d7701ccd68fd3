import { useState } from 'preact/hooks';
import { dateTime, fcfa, type Key, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Loading, useGet } from '../ui.js';

interface Payment {
  id: string;
  forfait_name: string;
  amount_fcfa: number;
  status: 'pending' | 'completed' | 'failed' | 'expired';
  created_at: string;
  nas_id?: string;
  msisdn?: string;
  /** Completed, and its access code never used: "payé, pas connecté". */
  paid_not_connected?: boolean;
}

/** The reseller's payments, newest first, a page at a time. */
export function Payments({ session }: { session: Session }) {
  const [cursor, setCursor] = useState('');
  const [shown, setShown] = useState<Payment[]>([]);
  const reseller = session.claims.reseller_id;
  const page = useGet<{ items: Payment[]; next_cursor?: string }>(
    `/payments?${reseller ? `reseller_id=${reseller}&` : ''}limit=50${cursor ? `&cursor=${cursor}` : ''}`,
  );
  if (!page.data && !shown.length) return <Loading error={page.error} />;
  const rows = [...shown, ...(page.data?.items ?? [])];
  if (!rows.length) return <p>{t('nothing')}</p>;
  return (
    <div>
      <table class="list">
        <thead>
          <tr>
            <th scope="col">{t('date')}</th>
            <th scope="col">{t('forfait')}</th>
            <th scope="col">{t('amount')}</th>
            <th scope="col">{t('status')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr key={p.id} data-payment={p.id}>
              <td>{dateTime(p.created_at)}</td>
              <td>
                {p.forfait_name}
                {p.msisdn ? <small> · {p.msisdn}</small> : null}
              </td>
              <td>{fcfa(p.amount_fcfa)}</td>
              <td>
                <span class={`badge ${p.paid_not_connected ? 'warn' : p.status}`}>
                  {p.paid_not_connected ? t('paid_not_connected') : t(`st_${p.status}` as Key)}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.data?.next_cursor ? (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setShown(rows);
            setCursor(page.data?.next_cursor ?? '');
          }}
        >
          {t('more')}
        </button>
      ) : null}
    </div>
  );
}
