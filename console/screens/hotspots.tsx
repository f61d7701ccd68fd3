import { useEffect, useState } from 'preact/hooks';
import type { Vlan } from '../answers.js';
import { api, errorText, fieldErrors } from '../api.js';
import { dateText, sinceText, t } from '../i18n.js';
import { useVlans } from '../lists.js';
import type { Session } from '../session.js';
import { Card, Field, failure, Input, Loading, Message, useGet } from '../ui.js';
import { Confirm, Select, useForm } from '../widgets.js';
import { LogoUpload } from './logo.js';
import { Credentials, type Issued, type Router, save, transportOptions } from './router-credentials.js';

interface Site {
  site_id: string;
  nas_id: string;
  ssid: string;
  city: string;
  site_number: number;
}
interface Branding {
  logo_url: string;
  primary_color: string;
  secondary_color?: string;
  banner_rotation_seconds?: number;
  custom_css?: string;
}

const HEX = /^#[0-9a-f]{6}$/i;

/**
 * The branding form with a live preview of the portal's header (colours, name) as it is typed;
 * the custom CSS is checked by the server on save (its refusals shown under the field) and seen
 * in the real portal below, framed from this origin.
 */
function BrandingEditor(props: { vlan: Vlan }) {
  const nas = props.vlan.nas_id;
  const current = useGet<Branding>(`/branding/${nas}?view=full`);
  const [form, setForm] = useState<Branding>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<string>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (current.data) setForm({ ...current.data });
  }, [current.data]);
  if (!form) return <Loading error={current.error} />;
  const set = (k: keyof Branding) => (value: string) => setForm({ ...form, [k]: value });
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(undefined);
    const body: Record<string, unknown> = {
      primary_color: form.primary_color,
      custom_css: form.custom_css ?? '',
    };
    // A logo of the platform's own origin is an uploaded one, set by its upload: not sent again.
    if (!form.logo_url.startsWith(`${location.origin}/`)) body.logo_url = form.logo_url;
    if (form.secondary_color) body.secondary_color = form.secondary_color;
    if (form.banner_rotation_seconds) body.banner_rotation_seconds = Number(form.banner_rotation_seconds);
    try {
      const a = await api('PUT', `/branding/${nas}`, body);
      if (a.status === 200) {
        setErrors({});
        setSaved(t('saved'));
        setVersion((v) => v + 1);
      } else setErrors(fieldErrors(a.body));
    } catch (err) {
      setErrors({ _: failure(err) });
    }
  };
  const primary = HEX.test(form.primary_color) ? form.primary_color : '#0f6cbd';
  const secondary = form.secondary_color && HEX.test(form.secondary_color) ? form.secondary_color : '#ffffff';
  const colour = (k: 'primary_color' | 'secondary_color', label: 'primary_color' | 'secondary_color') => (
    <Field id={`${nas}-${k}`} label={label} error={errors[k]}>
      <span class="colour">
        <input
          type="color"
          aria-label={t(label)}
          value={HEX.test(form[k] ?? '') ? form[k] : '#ffffff'}
          onInput={(e) => set(k)(e.currentTarget.value)}
        />
        <input
          id={`${nas}-${k}`}
          value={form[k] ?? ''}
          onInput={(e) => set(k)(e.currentTarget.value)}
          maxLength={7}
        />
      </span>
    </Field>
  );
  return (
    <form onSubmit={save} novalidate class="branding">
      <h3>{t('branding')}</h3>
      <div class="preview" role="img" aria-label={t('preview')} style={{ background: secondary }}>
        <div class="preview-bar" style={{ background: primary, color: contrastOn(primary) }}>
          {t('welcome_to', { name: props.vlan.reseller_name })}
        </div>
        <p>{t('preview')}</p>
      </div>
      {colour('primary_color', 'primary_color')}
      {colour('secondary_color', 'secondary_color')}
      <LogoUpload
        nasId={nas}
        logoUrl={form.logo_url}
        onDone={(url) => {
          setForm((f) => f && { ...f, logo_url: url });
          setVersion((v) => v + 1);
        }}
      />
      <Input
        id={`${nas}-logo`}
        label="logo_url"
        error={errors.logo_url}
        type="url"
        value={form.logo_url.startsWith(`${location.origin}/`) ? '' : form.logo_url}
        onValue={set('logo_url')}
      />
      <Input
        id={`${nas}-banner`}
        label="banner_seconds"
        error={errors.banner_rotation_seconds}
        type="number"
        min={3}
        max={600}
        value={String(form.banner_rotation_seconds ?? '')}
        onValue={set('banner_rotation_seconds')}
      />
      <Field id={`${nas}-css`} label="custom_css" error={errors.custom_css}>
        <textarea
          id={`${nas}-css`}
          rows={4}
          value={form.custom_css ?? ''}
          onInput={(e) => set('custom_css')(e.currentTarget.value)}
          spellcheck={false}
        />
      </Field>
      <button type="submit">{t('save')}</button>
      <Message text={errors._} />
      <Message text={saved} kind="ok" />
      <h3>{t('portal_preview')}</h3>
      {/* The platform's own page under its own CSP (no sandbox: it calls the API of this origin). */}
      <iframe
        key={version}
        class="portal"
        title={t('portal_preview')}
        src={`/portal/${encodeURIComponent(nas)}?lang=fr&v=${version}`}
      />
    </form>
  );
}

/** White or near-black, whichever reads better on the colour (as the portal decides). */
function contrastOn(hex: string): string {
  const c = (i: number) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * c(1) + 0.7152 * c(3) + 0.0722 * c(5);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.0556 ? '#ffffff' : '#111111';
}

function Sites(props: { sites: Site[] }) {
  if (!props.sites.length) return null;
  return (
    <>
      <h3>{t('sites')}</h3>
      <ul class="rows">
        {props.sites.map((s) => (
          <li key={s.site_id}>
            <span>
              #{s.site_number} {s.city}
            </span>
            <code>{s.nas_id}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What the router's own traffic says, in words: jamais vu, en ligne, silencieux depuis 14:02. */
function stateText(r: Router): string {
  if (r.status !== 'active') return t('revoked');
  if (r.state === 'online') return t('router_online');
  if (r.state === 'silent' && r.last_heard_at)
    return t('router_silent', { time: sinceText(r.last_heard_at) });
  return t('router_never_seen');
}

const STATE_BADGE = { online: 'completed', silent: 'failed', never_seen: 'pending' } as const;

/**
 * One router: transport, state from its traffic, address or certificate end; "Télécharger le
 * script" (new credentials, after asking: the script holds them and they are never kept in
 * clear) and "Révoquer", each behind a confirm step.
 */
function RouterRow(props: { router: Router; onChange: () => void; onIssued: (i: Issued) => void }) {
  const r = props.router;
  const [error, setError] = useState<string>();
  const revoke = async () => {
    try {
      const a = await api('POST', `/routers/${encodeURIComponent(r.router_id)}/revoke`, {});
      if (a.status === 200) props.onChange();
      else setError(errorText(a.body, a.status));
    } catch (err) {
      setError(failure(err));
    }
  };
  const script = async () => {
    try {
      const a = await api<Issued>('POST', `/routers/${encodeURIComponent(r.router_id)}/credentials`, {});
      if (a.status !== 201) return setError(errorText(a.body, a.status));
      setError(undefined);
      const text = a.body.routeros_script;
      if (text) save(`${r.nas_ids[0] ?? r.router_id}.rsc`, text);
      props.onIssued(a.body);
    } catch (err) {
      setError(failure(err));
    }
  };
  return (
    <li data-router={r.router_id}>
      <span>
        <strong>{r.name}</strong> · {t(r.transport === 'udp' ? 'transport_udp' : 'transport_radsec')}
        <br />
        {r.transport === 'udp' ? (
          <small>
            {t('registered_ip')} <code>{r.source_ip}</code>
          </small>
        ) : r.cert_not_after ? (
          <small>
            {t('cert_until')} {dateText(r.cert_not_after)}
          </small>
        ) : null}
      </span>
      <span class={`badge ${r.status === 'active' ? STATE_BADGE[r.state] : 'failed'}`} data-state={r.state}>
        {stateText(r)}
      </span>
      {r.status === 'active' ? (
        <span class="buttons">
          <Confirm
            label="router_script"
            name={r.name}
            question={t('router_script_q', { name: r.name })}
            yes="router_script_yes"
            onYes={script}
          />
          <Confirm
            label="revoke"
            name={r.name}
            question={t('revoke_router_q', { name: r.name })}
            onYes={revoke}
          />
        </span>
      ) : null}
      <Message text={error} />
    </li>
  );
}

/** "Ajouter un routeur": registers a router for one of the hotspot's NAS ids. */
function AddRouter(props: { resellerId: string; nasIds: string[]; onIssued: (i: Issued) => void }) {
  const [open, setOpen] = useState(false);
  const form = useForm(`${props.nasIds[0] ?? 'hotspot'}-router`, {
    name: '',
    nas: props.nasIds[0] ?? '',
    transport: 'radsec',
    source_ip: '',
  });
  const { values: f, errors, field } = form;
  if (!open)
    return (
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        {t('add_router')}
      </button>
    );
  const submit = form.submit(async () => {
    const a = await api<Issued>('POST', '/routers', {
      reseller_id: props.resellerId,
      name: f.name.trim(),
      nas_ids: [f.nas],
      transport: f.transport,
      ...(f.transport === 'udp' ? { source_ip: f.source_ip.trim() } : {}),
    });
    if (form.answered(a, 201)) {
      setOpen(false);
      form.setValues((v) => ({ ...v, name: '', source_ip: '' }));
      props.onIssued(a.body);
    }
  });
  return (
    <form onSubmit={submit} novalidate aria-label={t('add_router')}>
      <h3>{t('add_router')}</h3>
      <Input label="router_name" maxLength={64} {...field('name')} />
      {props.nasIds.length > 1 ? (
        <Select
          label="nas_id"
          options={props.nasIds}
          {...field('nas')}
          error={errors['nas_ids.0'] ?? errors.nas_ids}
        />
      ) : null}
      <Select label="transport" options={transportOptions()} {...field('transport')} />
      {f.transport === 'udp' ? (
        <Input label="source_ip" inputMode="decimal" {...field('source_ip', { id: 'ip' })} />
      ) : null}
      <div class="buttons">
        <button type="submit" disabled={form.busy || !f.name.trim()}>
          {t('register_router')}
        </button>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          {t('cancel')}
        </button>
      </div>
      <Message text={errors._ ?? errors.nas_ids} />
    </form>
  );
}

/** The hotspot's routers (those that speak for one of its NAS ids), added and revoked here. */
function Routers(props: { resellerId: string; nasIds: string[] }) {
  const list = useGet<{ items: Router[] }>(`/routers?reseller_id=${props.resellerId}`);
  const [issued, setIssued] = useState<{ issued: Issued; renewed: boolean }>();
  const mine = (list.data?.items ?? []).filter((r) => r.nas_ids.some((n) => props.nasIds.includes(n)));
  return (
    <>
      <h3>{t('routers')}</h3>
      {!list.data ? (
        <Loading error={list.error} />
      ) : mine.length ? (
        <ul class="rows routers">
          {mine.map((r) => (
            <RouterRow
              key={r.router_id}
              router={r}
              onChange={list.reload}
              onIssued={(i) => {
                setIssued({ issued: i, renewed: true });
                list.reload();
              }}
            />
          ))}
        </ul>
      ) : (
        <p>{t('no_routers')}</p>
      )}
      {issued ? (
        <Credentials issued={issued.issued} renewed={issued.renewed} onDone={() => setIssued(undefined)} />
      ) : null}
      <AddRouter
        resellerId={props.resellerId}
        nasIds={props.nasIds}
        onIssued={(i) => {
          setIssued({ issued: i, renewed: false });
          list.reload();
        }}
      />
    </>
  );
}

/** One hotspot (a VLAN): its facts, sites, routers and branding. */
function Hotspot(props: { vlan: Vlan }) {
  const v = props.vlan;
  const sites = useGet<{ items: Site[] }>(`/network/sites/${v.reseller_id}`);
  const siteNas = (sites.data?.items ?? []).map((s) => s.nas_id).filter((n) => n !== v.nas_id);
  return (
    <Card title={`${v.reseller_name} · ${t('vlan')} ${v.vlan_id}`}>
      <dl class="facts">
        <dt>{t('nas_id')}</dt>
        <dd>
          <code>{v.nas_id}</code>
        </dd>
        <dt>{t('ssid')}</dt>
        <dd>{v.ssid}</dd>
        <dt>{t('subnet')}</dt>
        <dd>{v.subnet}</dd>
      </dl>
      {sites.data ? <Sites sites={sites.data.items} /> : <Loading error={sites.error} />}
      <Routers resellerId={v.reseller_id} nasIds={[v.nas_id, ...siteNas]} />
      <BrandingEditor vlan={v} />
    </Card>
  );
}

export function Hotspots({ session }: { session: Session }) {
  const vlans = useVlans();
  if (!vlans.data) return <Loading error={vlans.error} />;
  const mine = vlans.data.items.filter(
    (v) => session.claims.role === 'admin' || v.reseller_id === session.claims.reseller_id,
  );
  if (!mine.length) return <p>{t('nothing')}</p>;
  return (
    <div class="grid">
      {mine.map((v) => (
        <Hotspot key={v.vlan_id} vlan={v} />
      ))}
    </div>
  );
}
