import { useEffect, useState } from 'preact/hooks';
import { api, fieldErrors, Offline } from '../api.js';
import { t } from '../i18n.js';
import type { Session } from '../session.js';
import { Card, Field, Loading, Message, useGet } from '../ui.js';

interface Vlan {
  vlan_id: number;
  reseller_id: string;
  reseller_name: string;
  subnet: string;
  nas_id: string;
  ssid: string;
  site_count: number;
}
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
  const set = (k: keyof Branding) => (e: Event) =>
    setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(undefined);
    const body: Record<string, unknown> = {
      primary_color: form.primary_color,
      logo_url: form.logo_url,
      custom_css: form.custom_css ?? '',
    };
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
      setErrors({ _: t(err instanceof Offline ? 'err_network' : 'err_server') });
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
          onInput={set(k)}
        />
        <input id={`${nas}-${k}`} value={form[k] ?? ''} onInput={set(k)} maxLength={7} />
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
      <Field id={`${nas}-logo`} label="logo_url" error={errors.logo_url}>
        <input id={`${nas}-logo`} type="url" value={form.logo_url} onInput={set('logo_url')} />
      </Field>
      <Field id={`${nas}-banner`} label="banner_seconds" error={errors.banner_rotation_seconds}>
        <input
          id={`${nas}-banner`}
          type="number"
          min={3}
          max={600}
          value={form.banner_rotation_seconds ?? ''}
          onInput={set('banner_rotation_seconds')}
        />
      </Field>
      <Field id={`${nas}-css`} label="custom_css" error={errors.custom_css}>
        <textarea
          id={`${nas}-css`}
          rows={4}
          value={form.custom_css ?? ''}
          onInput={set('custom_css')}
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

function Sites(props: { resellerId: string }) {
  const sites = useGet<{ items: Site[] }>(`/network/sites/${props.resellerId}`);
  if (!sites.data) return <Loading error={sites.error} />;
  if (!sites.data.items.length) return null;
  return (
    <>
      <h3>{t('sites')}</h3>
      <ul class="rows">
        {sites.data.items.map((s) => (
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

export function Hotspots({ session }: { session: Session }) {
  const vlans = useGet<{ items: Vlan[] }>('/network/vlans?page_size=100');
  if (!vlans.data) return <Loading error={vlans.error} />;
  const mine = vlans.data.items.filter(
    (v) => session.claims.role === 'admin' || v.reseller_id === session.claims.reseller_id,
  );
  if (!mine.length) return <p>{t('nothing')}</p>;
  return (
    <div class="grid">
      {mine.map((v) => (
        <Card key={v.vlan_id} title={`${v.reseller_name} · ${t('vlan')} ${v.vlan_id}`}>
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
          <Sites resellerId={v.reseller_id} />
          <BrandingEditor vlan={v} />
        </Card>
      ))}
    </div>
  );
}
