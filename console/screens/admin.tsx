import { useState } from 'preact/hooks';
import { api, fieldErrors, Offline } from '../api.js';
import { dateTime, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Card, Field, Loading, Message, useGet } from '../ui.js';
import { Credentials, type Issued } from './router-credentials.js';

interface Vlan {
  vlan_id: number;
  reseller_id: string;
  reseller_name: string;
  nas_id: string;
  ssid: string;
  site_count: number;
  created_at: string;
}

const COUNTRIES = ['CI', 'SN', 'BJ', 'BF', 'ML', 'NE', 'TG', 'CM', 'GA', 'CG', 'TD', 'CF'];

/** Onboarding in one flow: the account, its VLAN and NAS id, its first site and first router. */
function Onboard(props: { onDone: () => void }) {
  const [f, setF] = useState({
    msisdn: '+225',
    name: '',
    country: 'CI',
    city: '',
    latitude: '',
    longitude: '',
    router: '',
    transport: 'radsec',
    source_ip: '',
  });
  const [issued, setIssued] = useState<Issued>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: Event) =>
    setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setDone(undefined);
    try {
      const router = f.router.trim()
        ? {
            first_router: {
              name: f.router.trim(),
              transport: f.transport,
              ...(f.transport === 'udp' ? { source_ip: f.source_ip.trim() } : {}),
            },
          }
        : {};
      const a = await api<{ vlan_id: number; nas_id: string; reseller_id: string; router?: Issued }>(
        'POST',
        '/resellers',
        {
          msisdn: f.msisdn.replace(/[\s.()-]/g, ''),
          name: f.name,
          country: f.country,
          first_site: { city: f.city, latitude: Number(f.latitude), longitude: Number(f.longitude) },
          ...router,
        },
      );
      if (a.status === 201) {
        setErrors({});
        setDone(t('onboarded', { name: f.name, vlan: a.body.vlan_id, nas: a.body.nas_id }));
        setIssued(a.body.router);
        props.onDone();
      } else setErrors(fieldErrors(a.body));
    } catch (err) {
      setErrors({ _: t(err instanceof Offline ? 'err_network' : 'err_server') });
    }
    setBusy(false);
  };
  return (
    <form onSubmit={submit} novalidate>
      <Field id="ob-msisdn" label="phone" error={errors.msisdn}>
        <input id="ob-msisdn" type="tel" value={f.msisdn} onInput={set('msisdn')} />
      </Field>
      <Field id="ob-name" label="name" error={errors.name}>
        <input id="ob-name" value={f.name} onInput={set('name')} maxLength={64} />
      </Field>
      <Field id="ob-country" label="country" error={errors.country}>
        <select id="ob-country" value={f.country} onChange={set('country')}>
          {COUNTRIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </Field>
      <Field id="ob-city" label="first_site_city" error={errors['first_site.city']}>
        <input id="ob-city" value={f.city} onInput={set('city')} />
      </Field>
      <div class="pair">
        <Field id="ob-lat" label="latitude" error={errors['first_site.latitude']}>
          <input id="ob-lat" inputMode="decimal" value={f.latitude} onInput={set('latitude')} />
        </Field>
        <Field id="ob-lon" label="longitude" error={errors['first_site.longitude']}>
          <input id="ob-lon" inputMode="decimal" value={f.longitude} onInput={set('longitude')} />
        </Field>
      </div>
      <fieldset>
        <legend>{t('first_router')}</legend>
        <Field id="ob-router" label="router_name" error={errors['first_router.name']}>
          <input id="ob-router" value={f.router} onInput={set('router')} maxLength={64} />
        </Field>
        <Field id="ob-transport" label="transport" error={errors['first_router.transport']}>
          <select id="ob-transport" value={f.transport} onChange={set('transport')}>
            <option value="radsec">{t('transport_radsec')}</option>
            <option value="udp">{t('transport_udp')}</option>
          </select>
        </Field>
        {f.transport === 'udp' ? (
          <Field
            id="ob-source-ip"
            label="source_ip"
            error={errors['first_router.source_ip'] ?? errors.source_ip}
          >
            <input id="ob-source-ip" inputMode="decimal" value={f.source_ip} onInput={set('source_ip')} />
          </Field>
        ) : null}
      </fieldset>
      <button type="submit" disabled={busy}>
        {t('onboard')}
      </button>
      <Message text={errors._} />
      <Message text={done} kind="ok" />
      {issued ? <Credentials issued={issued} onDone={() => setIssued(undefined)} /> : null}
    </form>
  );
}

export function Resellers(_: { session: Session }) {
  const vlans = useGet<{ items: Vlan[]; total: number }>('/network/vlans?page_size=100');
  return (
    <div class="grid">
      <Card title={t('onboard')}>
        <Onboard onDone={vlans.reload} />
      </Card>
      <Card title={t('t_resellers')}>
        {!vlans.data ? (
          <Loading error={vlans.error} />
        ) : (
          <ul class="rows">
            {vlans.data.items.map((v) => (
              <li key={v.vlan_id}>
                <span>
                  {v.reseller_name} · {t('vlan')} {v.vlan_id}
                </span>
                <code>{v.nas_id}</code>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

export function Network(_: { session: Session }) {
  const vlans = useGet<{ items: Vlan[]; total: number }>('/network/vlans?page_size=100');
  if (!vlans.data) return <Loading error={vlans.error} />;
  return (
    <Card title={t('pool')}>
      <p>
        <strong data-testid="vlan-count">{vlans.data.total}</strong> {t('pool')}
      </p>
      <table class="list">
        <thead>
          <tr>
            <th scope="col">{t('vlan')}</th>
            <th scope="col">{t('reseller')}</th>
            <th scope="col">{t('sites')}</th>
          </tr>
        </thead>
        <tbody>
          {vlans.data.items.map((v) => (
            <tr key={v.vlan_id}>
              <td>{v.vlan_id}</td>
              <td>{v.reseller_name}</td>
              <td>{v.site_count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}

interface Alert {
  id: string;
  severity: string;
  site: string;
  ts: string;
  acked: boolean;
  message: string;
  type: string;
}

export function Status(_: { session: Session }) {
  const canary = useGet<{
    overall_status: string;
    last_run: string | null;
    tests: { name: string; success: boolean; latency_ms: number }[];
  }>('/canary/status');
  const alerts = useGet<{ items: Alert[] }>('/alerts?status=active&page_size=100');
  const [acked, setAcked] = useState<Record<string, boolean>>({});
  const ack = async (id: string) => {
    const a = await api('PUT', `/alerts/${id}/ack`, {});
    if (a.status === 200) setAcked({ ...acked, [id]: true });
  };
  return (
    <div class="grid">
      <Card title={t('canary')}>
        {!canary.data ? (
          <Loading error={canary.error} />
        ) : (
          <>
            <p>
              <span class={`badge ${canary.data.overall_status}`}>{canary.data.overall_status}</span>{' '}
              {t('last_run')}: {canary.data.last_run ? dateTime(canary.data.last_run) : '—'}
            </p>
            <ul class="rows">
              {canary.data.tests.map((c) => (
                <li key={c.name}>
                  <span>{c.name}</span>
                  <span>
                    {c.success ? '✔' : '✘'} {c.latency_ms} ms
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
      </Card>
      <Card title={t('alerts')}>
        {!alerts.data ? (
          <Loading error={alerts.error} />
        ) : alerts.data.items.length === 0 ? (
          <p>{t('no_alerts')}</p>
        ) : (
          <ul class="rows">
            {alerts.data.items.map((a) => (
              <li key={a.id}>
                <span>
                  <strong>{a.severity}</strong> {a.type} · {a.site}: {a.message}
                </span>
                {acked[a.id] ? (
                  <em>{t('acked')}</em>
                ) : (
                  <button type="button" class="small" onClick={() => ack(a.id)}>
                    {t('ack')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

interface Entry {
  at: string;
  actor_ref: string;
  role: string;
  action: string;
  status: number;
  ip: string;
}

export function Activity(_: { session: Session }) {
  const [day, setDay] = useState(new Date().toISOString().slice(0, 10));
  const [actor, setActor] = useState('');
  const [cursor, setCursor] = useState('');
  const [shown, setShown] = useState<Entry[]>([]);
  const page = useGet<{ items: Entry[]; next_cursor?: string }>(
    `/activity?day=${day}${cursor ? `&cursor=${cursor}` : ''}`,
  );
  const rows = [...shown, ...(page.data?.items ?? [])].filter(
    (e) => !actor || e.actor_ref.includes(actor) || e.action.includes(actor),
  );
  return (
    <div>
      <div class="pair no-print">
        <Field id="act-day" label="date">
          <input
            id="act-day"
            type="date"
            value={day}
            onChange={(e) => {
              setShown([]);
              setCursor('');
              setDay(e.currentTarget.value);
            }}
          />
        </Field>
        <Field id="act-filter" label="filter">
          <input id="act-filter" value={actor} onInput={(e) => setActor(e.currentTarget.value)} />
        </Field>
      </div>
      {!page.data && !shown.length ? (
        <Loading error={page.error} />
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">{t('when')}</th>
              <th scope="col">{t('who')}</th>
              <th scope="col">{t('what')}</th>
              <th scope="col">{t('from')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={`${e.at}${e.action}`}>
                <td>{dateTime(e.at)}</td>
                <td>
                  {e.actor_ref} <small>({e.role})</small>
                </td>
                <td>
                  <code>{e.action}</code> → {e.status}
                </td>
                <td>{e.ip}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
