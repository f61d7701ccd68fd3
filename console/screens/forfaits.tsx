import { useState } from 'preact/hooks';
import type { OwnForfait, OwnForfaitBounds } from '../answers.js';
import { type ApiError, api, fieldErrors } from '../api.js';
import { dataText, durationText, fcfa, type Key, t } from '../i18n.js';
import { useHotspots } from '../lists.js';
import type { Session } from '../session.js';
import { Card, Input, Loading, Message, useGet } from '../ui.js';
import { Select, useForm } from '../widgets.js';

const PATH = '/resellers/me/forfaits';

/** The form's text values of a forfait (a new one: a two-hour pass as a starting point). */
const formOf = (f?: OwnForfait) => ({
  name: f?.name ?? '',
  price_fcfa: String(f?.price_fcfa ?? ''),
  duration_hours: String(f?.duration_hours ?? 2),
  data_limit_mb: String(f?.data_limit_mb ?? 0),
  cir_kbps: String(f?.cir_kbps ?? 512),
  mir_kbps: String(f?.mir_kbps ?? 2048),
  max_devices: String(f?.max_devices ?? 1),
  time_counts: f?.time_counts ?? 'first_login',
});

/** The API's stable codes in the reader's language; a field's own message otherwise. */
function errorsOf(body: ApiError): Record<string, string> {
  const code = body.error?.code;
  const byCode: Partial<Record<string, Key>> = {
    ERR_FORFAIT_OUT_OF_BOUNDS: 'err_forfait_bounds',
    ERR_FORFAIT_LIMIT: 'err_forfait_limit',
  };
  const known = code ? byCode[code] : undefined;
  const errors = fieldErrors(body);
  return known
    ? { ...Object.fromEntries(Object.keys(errors).map((k) => [k, t(known)])), _: t(known) }
    : errors;
}

/** Create (no `forfait`) or change one forfait: its offer, how its time counts, its hotspots. */
function ForfaitForm(props: {
  forfait?: OwnForfait;
  hotspots: { nas_id: string; name: string }[];
  onDone: () => void;
}) {
  const f = props.forfait;
  const prefix = f ? `edit-${f.id.slice(0, 8)}` : 'new';
  const form = useForm(prefix, formOf(f));
  const [nasIds, setNasIds] = useState<string[]>(f?.nas_ids ?? []);
  const num = (k: keyof ReturnType<typeof formOf>) => Number(form.values[k]);
  const onSubmit = form.submit(async () => {
    const body = {
      name: form.values.name.trim(),
      price_fcfa: num('price_fcfa'),
      duration_hours: num('duration_hours'),
      data_limit_mb: num('data_limit_mb'),
      cir_kbps: num('cir_kbps'),
      mir_kbps: num('mir_kbps'),
      max_devices: num('max_devices'),
      time_counts: form.values.time_counts,
      nas_ids: nasIds,
    };
    const a = f ? await api('PUT', `${PATH}/${f.id}`, body) : await api('POST', PATH, body);
    const ok = a.status === (f ? 200 : 201);
    form.setErrors(ok ? {} : errorsOf(a.body as ApiError));
    if (ok) props.onDone();
  });
  const numeric = { inputMode: 'numeric' as const, pattern: '[0-9]+', required: true };
  return (
    <form onSubmit={onSubmit} class="forfait-form">
      <Input {...form.field('name')} label="f_name" required maxLength={60} />
      <Input {...form.field('price_fcfa')} label="f_price" {...numeric} />
      <Input {...form.field('duration_hours')} label="f_duration" {...numeric} />
      <Input {...form.field('data_limit_mb')} label="f_data" {...numeric} />
      <Input {...form.field('cir_kbps')} label="f_cir" {...numeric} />
      <Input {...form.field('mir_kbps')} label="f_mir" {...numeric} />
      <Input {...form.field('max_devices')} label="f_devices" {...numeric} />
      <Select
        {...form.field('time_counts')}
        label="f_time_counts"
        options={[
          ['first_login', t('f_first_login')],
          ['connected', t('f_connected')],
        ]}
      />
      {props.hotspots.length > 1 ? (
        <fieldset>
          <legend>{t('f_hotspots')}</legend>
          {props.hotspots.map((h) => (
            <label key={h.nas_id} class="check">
              <input
                type="checkbox"
                checked={nasIds.includes(h.nas_id)}
                onChange={(e) =>
                  setNasIds((ids) =>
                    e.currentTarget.checked ? [...ids, h.nas_id] : ids.filter((id) => id !== h.nas_id),
                  )
                }
              />{' '}
              {h.name} ({h.nas_id})
            </label>
          ))}
        </fieldset>
      ) : null}
      <Message text={form.errors._} />
      <button type="submit" disabled={form.busy}>
        {t(f ? 'f_save' : 'f_create')}
      </button>
    </form>
  );
}

/** One forfait's card: what it sells, and its buttons (move, hide or show, edit). */
function ForfaitCard(props: {
  f: OwnForfait;
  above?: OwnForfait;
  below?: OwnForfait;
  hotspots: { nas_id: string; name: string }[];
  onChange: () => void;
}) {
  const { f } = props;
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string>();
  const put = (id: string, body: unknown) => api('PUT', `${PATH}/${id}`, body);
  const act = async (send: () => Promise<{ status: number; body: unknown }[]>) => {
    const answers = await send();
    const bad = answers.find((a) => a.status !== 200);
    setError(bad ? (errorsOf(bad.body as ApiError)._ ?? t('err_server')) : undefined);
    props.onChange();
  };
  // Moving swaps the places of two neighbours.
  const swap = (other: OwnForfait) => () =>
    act(() =>
      Promise.all([put(f.id, { position: other.position }), put(other.id, { position: f.position })]),
    );
  const where = f.nas_ids.length
    ? f.nas_ids.map((id) => props.hotspots.find((h) => h.nas_id === id)?.name ?? id).join(', ')
    : t('f_all_hotspots');
  const title = f.hidden ? `${f.name} (${t('f_hidden')})` : f.name;
  return (
    <Card title={title} class={f.hidden ? 'forfait hidden-forfait' : 'forfait'}>
      <p>
        <strong>{fcfa(f.price_fcfa)}</strong> · {durationText(f.duration_hours)} · {dataText(f.data_limit_mb)}
      </p>
      <p>
        {t('f_devices')} : {f.max_devices} ·{' '}
        {t(f.time_counts === 'connected' ? 'f_connected' : 'f_first_login')} · {where}
      </p>
      <div class="buttons">
        {props.above ? (
          <button type="button" class="small secondary" onClick={swap(props.above)}>
            {t('f_up')} <span class="sr-only">{f.name}</span>
          </button>
        ) : null}
        {props.below ? (
          <button type="button" class="small secondary" onClick={swap(props.below)}>
            {t('f_down')} <span class="sr-only">{f.name}</span>
          </button>
        ) : null}
        <button
          type="button"
          class="small secondary"
          onClick={() => act(async () => [await put(f.id, { hidden: !f.hidden })])}
        >
          {t(f.hidden ? 'f_show' : 'f_hide')} <span class="sr-only">{f.name}</span>
        </button>
        <button
          type="button"
          class="small secondary"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          {t('f_edit')} <span class="sr-only">{f.name}</span>
        </button>
      </div>
      <Message text={error} />
      {editing ? (
        <ForfaitForm
          forfait={f}
          hotspots={props.hotspots}
          onDone={() => {
            setEditing(false);
            props.onChange();
          }}
        />
      ) : null}
    </Card>
  );
}

/** A reseller's own forfaits: made, changed, ordered and hidden here. */
export function Forfaits(props: { session: Session }) {
  const list = useGet<{ items: OwnForfait[]; bounds: OwnForfaitBounds }>(PATH);
  const hotspots = useHotspots(props.session.claims.reseller_id);
  const [made, setMade] = useState(0);
  if (!list.data) return <Loading error={list.error} />;
  const { items, bounds } = list.data;
  return (
    <>
      <Card title={t('own_forfaits')}>
        <p>{t('own_forfaits_intro')}</p>
        {items.length ? null : <p>{t('own_none')}</p>}
      </Card>
      {items.map((f, i) => (
        <ForfaitCard
          key={f.id}
          f={f}
          {...(i > 0 ? { above: items[i - 1] } : {})}
          {...(i < items.length - 1 ? { below: items[i + 1] } : {})}
          hotspots={hotspots}
          onChange={list.reload}
        />
      ))}
      <Card title={t('own_new')}>
        <p>
          {t('own_bounds', {
            min: fcfa(bounds.min_price_fcfa),
            max: fcfa(bounds.max_price_fcfa),
            hours: bounds.max_duration_hours,
            count: bounds.max_count,
          })}
        </p>
        <ForfaitForm
          key={made}
          hotspots={hotspots}
          onDone={() => {
            setMade((n) => n + 1);
            list.reload();
          }}
        />
      </Card>
    </>
  );
}
