import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { dateTime, t } from '../i18n.js';
import { useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { Card, Field, Input, Loading, Message, useGet } from '../ui.js';
import { More, Select, Table, useForm, usePaged } from '../widgets.js';
import { Alerts } from './alerts.js';
import { Credentials, type Issued, transportOptions } from './router-credentials.js';

const COUNTRIES = ['CI', 'SN', 'BJ', 'BF', 'ML', 'NE', 'TG', 'CM', 'GA', 'CG', 'TD', 'CF'];

/** Onboarding in one flow: the account, its VLAN and NAS id, its first site and first router. */
function Onboard(props: { onDone: () => void }) {
  const form = useForm('ob', {
    msisdn: '',
    name: '',
    country: 'CI',
    city: '',
    latitude: '',
    longitude: '',
    router: '',
    transport: 'radsec',
    source_ip: '',
  });
  const { values: f, errors, field } = form;
  const [issued, setIssued] = useState<Issued>();
  const [done, setDone] = useState<string>();
  const submit = form.submit(async () => {
    setDone(undefined);
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
        // As typed: the API reads it in the reseller's country ("07 12 34 56 78" for CI).
        msisdn: f.msisdn.trim(),
        name: f.name,
        country: f.country,
        first_site: { city: f.city, latitude: Number(f.latitude), longitude: Number(f.longitude) },
        ...router,
      },
    );
    if (form.answered(a, 201)) {
      setDone(t('onboarded', { name: f.name, vlan: a.body.vlan_id, nas: a.body.nas_id }));
      setIssued(a.body.router);
      props.onDone();
    }
  });
  const site = (name: 'city' | 'latitude' | 'longitude', id: string = name) =>
    field(name, { id, error: `first_site.${name}` });
  return (
    <form onSubmit={submit} novalidate>
      <Input label="phone" type="tel" {...field('msisdn')} />
      <Input label="name" maxLength={64} {...field('name')} />
      <Select label="country" options={COUNTRIES} {...field('country')} />
      <Input label="first_site_city" {...site('city')} />
      <div class="pair">
        <Input label="latitude" inputMode="decimal" {...site('latitude', 'lat')} />
        <Input label="longitude" inputMode="decimal" {...site('longitude', 'lon')} />
      </div>
      <fieldset>
        <legend>{t('first_router')}</legend>
        <Input label="router_name" maxLength={64} {...field('router', { error: 'first_router.name' })} />
        <Select
          label="transport"
          options={transportOptions()}
          {...field('transport', { error: 'first_router.transport' })}
        />
        {f.transport === 'udp' ? (
          <Input
            label="source_ip"
            inputMode="decimal"
            {...field('source_ip', { id: 'source-ip' })}
            error={errors['first_router.source_ip'] ?? errors.source_ip}
          />
        ) : null}
      </fieldset>
      <button type="submit" disabled={form.busy}>
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
