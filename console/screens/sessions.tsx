import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { dataText, dateTime, type Key, t } from '../i18n.js';
import type { Session } from '../session.js';
import { failure, Loading, Message } from '../ui.js';
import { Confirm, More, usePaged } from '../widgets.js';

interface Live {
  id: string;
  nas_id: string;
  device: string;
  mac?: string;
  code: string;
  forfait_name?: string;
  started_at: string;
  total_bytes: number;
  seconds_left?: number;
  data_left_mb?: number;
}

/** What `GET /sessions/{id}` says of the session and of its Disconnect-Request. */
interface SessionState {
  status: 'open' | 'closed';
  disconnect: {
    status: 'pending' | 'sent' | 'acked' | 'failed';
    last_outcome?: 'ack' | 'nak' | 'timeout';
    error_cause?: number;
  } | null;
}

/** Where a disconnect stands, as the row says it: under way, or the router's final word. */
type Outcome =
  | { kind: 'waiting'; key: Key }
  | { kind: 'done' | 'refused' | 'silent' | 'error'; text: string };

const left = (s: number | undefined) =>
  s === undefined
    ? t('not_started')
    : s >= 86_400
      ? t('days_hours', { d: Math.floor(s / 86_400), h: Math.floor((s % 86_400) / 3600) })
      : s >= 3600
        ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
        : `${Math.floor(s / 60)} min`;

const dataLeft = (mb: number | undefined) =>
  mb === undefined ? t('unlimited') : mb === 0 ? '0 Mo' : dataText(mb);

/** The code in groups of four, as the cards print it. */
const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');

/** Where the disconnect stands from the session's state: the router's final answer, or still under way. */
function outcomeOf(s: SessionState): Outcome {
  const d = s.disconnect;
  if (d?.status === 'acked') return { kind: 'done', text: t('dc_done') };
  if (d?.status === 'failed')
    return d.last_outcome === 'nak'
      ? {
          kind: 'refused',
          text: t('dc_refused', {
            cause: d.error_cause === undefined ? '' : ` (Error-Cause ${d.error_cause})`,
          }),
        }
      : { kind: 'silent', text: t('dc_silent') };
  // Closed by the router's own Stop meanwhile: the device is off all the same.
  if (s.status === 'closed') return { kind: 'done', text: t('dc_closed') };
  if (d?.last_outcome === 'nak') return { kind: 'waiting', key: 'dc_retry_nak' };
  if (d?.last_outcome === 'timeout') return { kind: 'waiting', key: 'dc_retry_silent' };
  return { kind: 'waiting', key: 'dc_sent' };
}

const POLL_MS = 1500;

/**
 * One live session: its code, forfait, device, time and data left, and "Déconnecter" behind a
 * confirm step. The disconnect is a request the RADIUS front sends to the router (RFC 5176); the
 * row follows it (`GET /sessions/{id}`) and says what the router answered: done, refused, or
 * nothing. It never says "disconnected" before the router did.
 */
function SessionRow({ s }: { s: Live }) {
  const [outcome, setOutcome] = useState<Outcome>();
  const waiting = outcome?.kind === 'waiting';
  useEffect(() => {
    if (!waiting) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const a = await api<SessionState>('GET', `/sessions/${encodeURIComponent(s.id)}`);
        if (!live) return;
        if (a.status === 200) setOutcome(outcomeOf(a.body));
        else setOutcome({ kind: 'error', text: errorText(a.body, a.status) });
      } catch (err) {
        if (live) setOutcome({ kind: 'error', text: failure(err) });
        return;
      }
      if (live) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [waiting, s.id]);

  const disconnect = async () => {
    setOutcome(undefined);
    try {
      const a = await api<SessionState>('POST', `/sessions/${encodeURIComponent(s.id)}/disconnect`, {});
      if (a.status === 202) setOutcome(outcomeOf(a.body));
      else if (a.status === 409) setOutcome({ kind: 'done', text: t('dc_closed') });
      else setOutcome({ kind: 'error', text: errorText(a.body, a.status) });
    } catch (err) {
      setOutcome({ kind: 'error', text: failure(err) });
    }
  };
  const who = s.mac ?? t('unknown_device');
  const done = outcome?.kind === 'done';
  return (
    <li class="card session" data-session={s.id}>
      <p class="session-head">
        <code class="session-code">{grouped(s.code)}</code>
        <span>{s.forfait_name ?? ''}</span>
      </p>
      <p>
        {t('device')} <code>{who}</code>
      </p>
      <p>
        {t('time_left')} <b>{left(s.seconds_left)}</b> · {t('data_left')} <b>{dataLeft(s.data_left_mb)}</b>
      </p>
      <p class="muted">
        {t('started')} {dateTime(s.started_at)}
      </p>
      {outcome?.kind === 'waiting' ? (
        <p class="pending" role="status">
          {t(outcome.key)}
        </p>
      ) : outcome ? (
        <Message text={outcome.text} kind={done ? 'ok' : 'error'} />
      ) : null}
      {done || waiting ? null : (
        <Confirm
          label="disconnect"
          name={who}
          question={
            s.mac
              ? t('disconnect_q', { device: s.mac, code: grouped(s.code) })
              : t('disconnect_q_code', { code: grouped(s.code) })
          }
          yes="disconnect_yes"
          onYes={disconnect}
        />
      )}
    </li>
  );
}

/** Who is online now at the reseller's hotspots, a page at a time; ended sessions found below. */
export function Sessions({ session }: { session: Session }) {
  const reseller = session.claims.reseller_id;
  const list = usePaged<Live>(`/sessions?${reseller ? `reseller_id=${reseller}&` : ''}limit=50`);
  return (
    <div>
      {list.loading ? (
        <Loading error={list.error} />
      ) : !list.items.length ? (
        <p>{t('nothing')}</p>
      ) : (
        <>
          <ul class="cards">
            {list.items.map((s) => (
              <SessionRow key={s.id} s={s} />
            ))}
          </ul>
          <More onClick={list.more} />
        </>
      )}
      <EndedSearch reseller={reseller} />
    </div>
  );
}

/** An ended session as `GET /sessions/ended` answers it. */
interface Ended {
  id: string;
  code: string;
  mac?: string;
  forfait_name?: string;
  started_at: string;
  closed_at: string;
  close_reason?: string;
  total_bytes: number;
  session_time_s: number;
}

const REASONS: Record<string, Key> = {
  stop: 'end_stop',
  disconnect: 'end_disconnect',
  stale: 'end_stale',
  nas_restart: 'end_nas_restart',
  released: 'end_released',
};

/** The data a session used: in Mo (Go from 1 024 Mo), "< 1 Mo" below. */
const used = (bytes: number) => (bytes < 1_048_576 ? '< 1 Mo' : dataText(Math.round(bytes / 1_048_576)));

/** Digits, spaces, +, dots, dashes and brackets only: a phone number; anything else is a code. */
const isPhone = (q: string) => /^[+\d\s().-]+$/.test(q) && /\d{6}/.test(q.replace(/\D/g, ''));

/**
 * The sessions of the last 30 days that ended, found by a code (as typed) or by the phone that
 * bought it: who used a code, when, on which device, how much, and how it ended.
 */
function EndedSearch(props: { reseller: string | undefined }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Ended[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const search = async (e: Event) => {
    e.preventDefault();
    const typed = q.trim();
    if (!typed) return;
    setBusy(true);
    setError(undefined);
    const by = isPhone(typed) ? `phone=${encodeURIComponent(typed)}` : `code=${encodeURIComponent(typed)}`;
    try {
      const a = await api<{ items: Ended[] }>(
        'GET',
        `/sessions/ended?${props.reseller ? `reseller_id=${props.reseller}&` : ''}${by}`,
      );
      if (a.status === 200) setFound(a.body.items);
      else {
        setFound(undefined);
        setError(t('ended_bad'));
      }
    } catch (err) {
      setError(failure(err));
    }
    setBusy(false);
  };
  return (
    <section class="card ended">
      <h2>{t('ended_title')}</h2>
      <form onSubmit={search} class="inline">
        <label for="ended-q">
          {t('ended_q')}
          <input id="ended-q" value={q} autoComplete="off" onInput={(e) => setQ(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy} aria-busy={busy}>
          {t('ended_search')}
        </button>
      </form>
      <Message text={error} />
      {found === undefined ? null : found.length === 0 ? (
        <p role="status">{t('ended_none')}</p>
      ) : (
        <ul class="cards" data-testid="ended">
          {found.map((s) => (
            <li key={s.id} class="session" data-code={s.code}>
              <p class="session-head">
                <code class="session-code">{grouped(s.code)}</code>
                <span>{s.forfait_name ?? ''}</span>
              </p>
              {s.mac ? (
                <p>
                  {t('device')} <code>{s.mac}</code>
                </p>
              ) : null}
              <p>
                {dateTime(s.started_at)} → {dateTime(s.closed_at)} · {left(s.session_time_s)} ·{' '}
                {used(s.total_bytes)}
              </p>
              <p class="muted">{t(REASONS[s.close_reason ?? 'stop'] ?? 'end_stop')}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
