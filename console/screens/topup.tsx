import { useState } from 'preact/hooks';
import type { Forfait } from '../answers.js';
import { api } from '../api.js';
import { dataText, dateTime, durationText, fcfa, t } from '../i18n.js';
import { forfaitOptions } from '../lists.js';
import { Card, Input, Message } from '../ui.js';
import { Select, useForm } from '../widgets.js';

/** What a top-up answers: the code's limits after it. */
interface ToppedUp {
  code: string;
  forfait_name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number;
  expires_at?: string;
}

/** The code in groups of four, as the cards print it. */
const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * "Recharger un code": a guest's code gets a forfait's time and data on top (a top-up, paid in
 * cash to whoever makes it), after a confirm step naming the code, the forfait and its price.
 * `path`: where the top-up goes (the reseller's `/access/{code}/topups`, or an agent's own
 * `/agents/{id}/topups`, which takes the code in its body).
 */
export function TopupCard(props: { forfaits: Forfait[]; path?: (code: string) => string; prefix?: string }) {
  const form = useForm(props.prefix ?? 'topup', { code: '', forfait_id: '' });
  const { field, errors } = form;
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<ToppedUp & { float_fcfa?: number | undefined }>();
  const code = form.values.code.toUpperCase().replace(/[\s-]/g, '');
  const chosen = props.forfaits.find((f) => f.id === form.values.forfait_id) ?? props.forfaits[0];

  const ask = (e: Event) => {
    e.preventDefault();
    setDone(undefined);
    if (!/^[A-Z0-9]{4,32}$/.test(code)) return form.setErrors({ code: t('topup_bad_code') });
    form.setErrors({});
    setAsking(true);
  };
  const send = form.submit(async () => {
    setAsking(false);
    const path = props.path ? props.path(code) : `/access/${encodeURIComponent(code)}/topups`;
    const body = props.path ? { code, forfait_id: chosen?.id } : { forfait_id: chosen?.id };
    // A reseller's top-up answers the code's limits; an agent's, its sale with them and its float.
    const a = await api<ToppedUp & { topup?: ToppedUp; float_fcfa?: number }>('POST', path, body);
    const refused = a.body.error?.code;
    if (a.status === 201) {
      form.setErrors({});
      setDone({ ...(a.body.topup ?? a.body), float_fcfa: a.body.float_fcfa });
      form.setValues((v) => ({ ...v, code: '' }));
    } else if (refused === 'ERR_AGENT_FLOAT_EXHAUSTED') form.setErrors({ _: t('no_float') });
    else if (refused === 'ERR_AGENT_STOCK_EXHAUSTED') form.setErrors({ _: t('no_stock') });
    else if (a.status === 404 && a.body.error?.message?.startsWith('Code')) {
      form.setErrors({ code: t('topup_unknown') });
    } else if (refused === 'ERR_CODE_NOT_LIVE') {
      form.setErrors({ code: t('topup_not_live') });
    } else form.answered(a, 201);
  });

  return (
    <Card title={t('topup')}>
      <p>{t('topup_intro')}</p>
      <form onSubmit={asking ? send : ask} novalidate>
        <Input label="topup_code" autoComplete="off" {...field('code')} />
        <Select
          label="topup_forfait"
          options={forfaitOptions(props.forfaits)}
          {...field('forfait_id')}
          value={chosen?.id}
        />
        {asking && chosen ? (
          <p class="confirm" role="alert">
            <span>
              {t('topup_q', { code: grouped(code), forfait: chosen.name, price: fcfa(chosen.price_fcfa) })}
            </span>
            <span class="buttons">
              <button type="submit" class="small" disabled={form.busy}>
                {t('topup_yes')}
              </button>
              <button type="button" class="small secondary" onClick={() => setAsking(false)}>
                {t('cancel')}
              </button>
            </span>
          </p>
        ) : (
          <button type="submit" disabled={form.busy || !chosen}>
            {t('topup_go')}
          </button>
        )}
        <Message text={errors._} />
        <Message
          kind="ok"
          text={
            done &&
            t(done.expires_at ? 'topup_done' : 'topup_done_unused', {
              code: grouped(done.code),
              forfait: done.forfait_name,
              price: fcfa(done.price_fcfa),
              until: done.expires_at ? dateTime(done.expires_at) : '',
              duration: durationText(done.duration_hours),
              data: dataText(done.data_limit_mb),
            })
          }
        />
        {done?.float_fcfa !== undefined ? <p>{t('float_left', { amount: fcfa(done.float_fcfa) })}</p> : null}
      </form>
    </Card>
  );
}
