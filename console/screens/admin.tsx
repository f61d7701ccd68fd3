import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { dateTime, dayText, num, t } from '../i18n.js';
import { resellerOptions, useForfaits, useResellerVlans, useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { Card, Input, Loading, Message, useGet } from '../ui.js';
import { More, Select, Table, useForm, usePaged } from '../widgets.js';
import type { Entry } from './activity-words.js';
import { describe, KINDS, kindOf } from './activity-words.js';
import { w } from './admin-words.js';

type Words = Parameters<typeof w>[0];

import { phoneExample, resellerCountryOptions } from '../places.js';
import { Alerts } from './alerts.js';
import { Credentials, type Issued, transportOptions } from './router-credentials.js';

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
      <Select label="country" options={resellerCountryOptions()} {...field('country')} />
      <Input label="phone" type="tel" hint={phoneExample(f.country)} {...field('msisdn')} />
      <Input label="name" maxLength={64} {...field('name')} />
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
  const vlans = useResellerVlans();
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

/** A check as the Status screen says it: passed (with its time), not set up here, or failed. */
function checkText(c: { success: boolean; latency_ms: number; error?: string }): string {
  if (c.success) return `✔ ${num(c.latency_ms)}\u00a0ms`;
  return c.error === 'not_configured' ? w('ck_not_configured') : `✘ ${w('ck_failed')}`;
}

/**
 * The canary's last run, test by test, and the active alerts. "Tout va bien" only when every
 * check passed: a run the canary counts as healthy with checks not set up says so.
 */
export function Status(_: { session: Session }) {
  const canary = useGet<{
    overall_status: string;
    last_run: string | null;
    tests: { name: string; success: boolean; latency_ms: number; error?: string }[];
  }>('/canary/status');
  const failed = canary.data?.tests.filter((c) => !c.success).length ?? 0;
  const verdict =
    canary.data?.overall_status === 'healthy' && failed > 0
      ? w('st_healthy_partly', { n: failed })
      : w(`st_${canary.data?.overall_status ?? 'unknown'}` as Words);
  return (
    <div class="grid">
      <Card title={t('canary')}>
        {!canary.data ? (
          <Loading error={canary.error} />
        ) : (
          <>
            <p>
              <span
                class={`badge ${failed && canary.data.overall_status === 'healthy' ? 'warn' : canary.data.overall_status}`}
              >
                {verdict}
              </span>{' '}
              {t('last_run')}: {canary.data.last_run ? dateTime(canary.data.last_run) : '—'}
            </p>
            <ul class="rows">
              {canary.data.tests.map((c) => (
                <li key={c.name} class={c.success ? undefined : 'refused'}>
                  <span>{w(`ck_${c.name}` as Words)}</span>
                  <span>{checkText(c)}</span>
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

/** The last `n` UTC days, today first: the Journal's days, written the reader's way (a native
 * date field writes the browser's, 11/26/2026 on an English phone). */
const lastDays = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10));

export function Activity(_: { session: Session }) {
  const [day, setDay] = useState(new Date().toISOString().slice(0, 10));
  const [reseller, setReseller] = useState('');
  const [kind, setKind] = useState('');
  const vlans = useVlans().data?.items ?? [];
  const customers = useResellerVlans().data?.items ?? [];
  const forfaits = useForfaits();
  const list = usePaged<Entry>(`/activity?day=${day}&limit=100`);
  const rows = list.items.filter(
    (e) =>
      (!reseller || e.reseller_id === reseller || e.facts?.reseller_id === reseller) &&
      (!kind || kindOf(e.action) === kind),
  );
  // A filter reads on through the day (10 pages at most) until it has a screenful to show.
  const more = list.more;
  const filtering = reseller !== '' || kind !== '';
  useEffect(() => {
    if (filtering && more && rows.length < 20 && list.items.length < 1000) more();
  }, [filtering, more, rows.length, list.items.length]);
  const names = { vlans, forfaits: forfaits.data?.items ?? [] };
  return (
    <div>
      <div class="filters no-print">
        <Select
          id="act-day"
          label="date"
          value={day}
          onValue={setDay}
          options={lastDays(60).map((d, i) => [d, i === 0 ? t('today') : dayText(d)] as const)}
        />
        <Select
          id="act-reseller"
          label="reseller"
          value={reseller}
          onValue={setReseller}
          first={<option value="">{w('all_resellers')}</option>}
          options={resellerOptions(customers)}
        />
        <Select
          id="act-kind"
          label="kind"
          value={kind}
          onValue={setKind}
          first={<option value="">{w('all_kinds')}</option>}
          options={KINDS.map((k) => [k, w(`k_${k}`)] as const)}
        />
      </div>
      {list.loading ? (
        <Loading error={list.error} />
      ) : rows.length ? (
        <ul class="rows activity">
          {rows.map((e) => (
            <li key={`${e.at}${e.id}`} class={e.status >= 400 ? 'refused' : undefined}>
              <span>
                {describe(e, names)}
                {e.status >= 400 ? <strong> ({w('act_refused')})</strong> : null}
              </span>
              <small>
                <time dateTime={e.at}>{dateTime(e.at)}</time> · {e.ip}
              </small>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('nothing')}</p>
      )}
      <More onClick={list.more} />
    </div>
  );
}
