import { useState } from 'preact/hooks';
import { useVlans } from '../answers.js';
import { api, fieldErrors } from '../api.js';
import { dateTime, t } from '../i18n.js';
import type { Session } from '../session.js';
import {
  Card,
  Field,
  failure,
  Input,
  Loading,
  Message,
  More,
  Select,
  Table,
  useGet,
  usePaged,
} from '../ui.js';
import { Alerts } from './alerts.js';
import { Credentials, type Issued, transportOptions } from './router-credentials.js';

const COUNTRIES = ['CI', 'SN', 'BJ', 'BF', 'ML', 'NE', 'TG', 'CM', 'GA', 'CG', 'TD', 'CF'].map(
  (c) => [c, c] as const,
);

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
  const set = (k: keyof typeof f) => (value: string) => setF({ ...f, [k]: value });
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
      setErrors({ _: failure(err) });
    }
    setBusy(false);
  };
  return (
    <form onSubmit={submit} novalidate>
      <Input
        id="ob-msisdn"
        label="phone"
        error={errors.msisdn}
        type="tel"
        value={f.msisdn}
        onValue={set('msisdn')}
      />
      <Input
        id="ob-name"
        label="name"
        error={errors.name}
        value={f.name}
        onValue={set('name')}
        maxLength={64}
      />
      <Select
        id="ob-country"
        label="country"
        error={errors.country}
        value={f.country}
        onValue={set('country')}
        options={COUNTRIES}
      />
      <Input
        id="ob-city"
        label="first_site_city"
        error={errors['first_site.city']}
        value={f.city}
        onValue={set('city')}
      />
      <div class="pair">
        <Input
          id="ob-lat"
          label="latitude"
          error={errors['first_site.latitude']}
          inputMode="decimal"
          value={f.latitude}
          onValue={set('latitude')}
        />
        <Input
          id="ob-lon"
          label="longitude"
          error={errors['first_site.longitude']}
          inputMode="decimal"
          value={f.longitude}
          onValue={set('longitude')}
        />
      </div>
      <fieldset>
        <legend>{t('first_router')}</legend>
        <Input
          id="ob-router"
          label="router_name"
          error={errors['first_router.name']}
          value={f.router}
          onValue={set('router')}
          maxLength={64}
        />
        <Select
          id="ob-transport"
          label="transport"
          error={errors['first_router.transport']}
          value={f.transport}
          onValue={set('transport')}
          options={transportOptions()}
        />
        {f.transport === 'udp' ? (
          <Input
            id="ob-source-ip"
            label="source_ip"
            error={errors['first_router.source_ip'] ?? errors.source_ip}
            inputMode="decimal"
            value={f.source_ip}
            onValue={set('source_ip')}
          />
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
  const vlans = useVlans();
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
  const vlans = useVlans();
  if (!vlans.data) return <Loading error={vlans.error} />;
  return (
    <Card title={t('pool')}>
      <p>
        <strong data-testid="vlan-count">{vlans.data.total}</strong> {t('pool')}
      </p>
      <Table class="list" head={['vlan', 'reseller', 'sites']}>
        <tbody>
          {vlans.data.items.map((v) => (
            <tr key={v.vlan_id}>
              <td>{v.vlan_id}</td>
              <td>{v.reseller_name}</td>
              <td>{v.site_count}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/** The canary's last run, test by test, and the active alerts. */
export function Status(_: { session: Session }) {
  const canary = useGet<{
    overall_status: string;
    last_run: string | null;
    tests: { name: string; success: boolean; latency_ms: number }[];
  }>('/canary/status');
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
        <Alerts full />
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
  const list = usePaged<Entry>(`/activity?day=${day}`);
  const rows = list.items.filter((e) => !actor || e.actor_ref.includes(actor) || e.action.includes(actor));
  return (
    <div>
      <div class="pair no-print">
        <Field id="act-day" label="date">
          <input id="act-day" type="date" value={day} onChange={(e) => setDay(e.currentTarget.value)} />
        </Field>
        <Input id="act-filter" label="filter" value={actor} onValue={setActor} />
      </div>
      {list.loading ? (
        <Loading error={list.error} />
      ) : (
        <Table class="list" head={['when', 'who', 'what', 'from']}>
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
        </Table>
      )}
      <More onClick={list.more} />
    </div>
  );
}
