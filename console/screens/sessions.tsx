import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { dateTime, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Loading, Message } from '../ui.js';
import { More, usePaged } from '../widgets.js';

interface Live {
  id: string;
  nas_id: string;
  device: string;
  code: string;
  started_at: string;
  total_bytes: number;
  seconds_left?: number;
  data_left_mb?: number;
}

const mb = (bytes: number) => `${Math.round(bytes / 104857.6) / 10} Mo`;
const left = (s: number | undefined) =>
  s === undefined
    ? '—'
    : s >= 3600
      ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
      : `${Math.floor(s / 60)} min`;

/** Who is online now at the reseller's hotspots, a page at a time, with a button to cut one. */
export function Sessions({ session }: { session: Session }) {
  const [gone, setGone] = useState<Record<string, boolean>>({});
  const [noDisconnect, setNoDisconnect] = useState(false);
  const [message, setMessage] = useState<string>();
  const reseller = session.claims.reseller_id;
  const list = usePaged<Live>(`/sessions?${reseller ? `reseller_id=${reseller}&` : ''}limit=50`);
  if (list.loading) return <Loading error={list.error} />;
  const rows = list.items.filter((s) => !gone[s.id]);
  const disconnect = async (id: string) => {
    const a = await api('POST', `/sessions/${encodeURIComponent(id)}/disconnect`, {});
    // The route may not exist on this platform yet: the buttons go away rather than fail.
    const noRoute = !a.body.error?.code || /^No route/.test(a.body.error.message ?? '');
    if (a.status === 405 || (a.status === 404 && noRoute)) {
      setNoDisconnect(true);
      return;
    }
    if (a.status >= 200 && a.status < 300) {
      setGone({ ...gone, [id]: true });
      setMessage(t('disconnected'));
    } else setMessage(a.body.error?.message);
  };
  // The message stays when the last session was just disconnected (and so left the list).
  if (!rows.length)
    return (
      <div>
        <Message text={message} kind="ok" />
        <p>{t('nothing')}</p>
      </div>
    );
  return (
    <div>
      <Message text={message} kind="ok" />
      <ul class="cards">
        {rows.map((s) => (
          <li key={s.id} class="card" data-session={s.id}>
            <p>
              <strong>{s.device}</strong> · <code>{s.nas_id}</code>
            </p>
            <p>
              {t('started')} {dateTime(s.started_at)} · {t('time_left')} {left(s.seconds_left)} ·{' '}
              {t('data_used')} {mb(s.total_bytes)}
            </p>
            {noDisconnect ? null : (
              <button type="button" class="danger" onClick={() => disconnect(s.id)}>
                {t('disconnect')} {s.device}
              </button>
            )}
          </li>
        ))}
      </ul>
      <More onClick={list.more} />
    </div>
  );
}
