import { useState } from 'preact/hooks';
import type { Alert } from '../answers.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { Loading, useGet } from '../ui.js';

/**
 * The active alerts, each with its "ack" button (then "acked"): on the reseller's dashboard, and
 * `full` on the operator's status screen (up to a hundred, each with its type).
 */
export function Alerts(props: { full?: boolean }) {
  const alerts = useGet<{ items: Alert[] }>(`/alerts?status=active${props.full ? '&page_size=100' : ''}`);
  const [acked, setAcked] = useState<Record<string, boolean>>({});
  const ack = async (id: string) => {
    const a = await api('PUT', `/alerts/${id}/ack`, {});
    if (a.status === 200) setAcked({ ...acked, [id]: true });
  };
  if (!alerts.data) return <Loading error={alerts.error} />;
  if (!alerts.data.items.length) return <p>{t('no_alerts')}</p>;
  return (
    <ul class="rows">
      {alerts.data.items.map((a) => (
        <li key={a.id}>
          <span>
            <strong>{a.severity}</strong> {props.full ? `${a.type} · ` : ''}
            {a.site}: {a.message}
          </span>
          {acked[a.id] || a.acked ? (
            <em>{t('acked')}</em>
          ) : (
            <button type="button" class="small" onClick={() => ack(a.id)}>
              {t('ack')}
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
