import { useState } from 'preact/hooks';
import { api, fieldErrors } from '../api.js';
import { dateTime, fcfa, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Card, Field, Loading, Message, useGet } from '../ui.js';
import { PrintSheet } from './print.js';

interface Agent {
  id: string;
  msisdn: string;
  name?: string;
  nas_ids?: string[];
  commission_bp: number;
  float_fcfa: number;
  stock: Record<string, number>;
  sold_fcfa: number;
  commission_fcfa: number;
  sales_count: number;
  owed_fcfa: number;
  cash_received_fcfa: number;
}
interface Sale {
  at: string;
  code: string;
  forfait_name: string;
  price_fcfa: number;
  commission_fcfa: number;
  nas_id?: string;
  buyer_msisdn?: string;
}
interface Forfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number;
}
interface Period {
  sold_fcfa: number;
  commission_fcfa: number;
  due_fcfa: number;
  sales_count: number;
}

const monthStart = () => `${new Date().toISOString().slice(0, 7)}-01`;
const today = () => new Date().toISOString().slice(0, 10);

/** One agent's row: its money, a float to give, cash to record, and its sales of the month. */
function AgentRow(props: { agent: Agent; onChange: () => void }) {
  const a = props.agent;
  const [float, setFloat] = useState('');
  const [cash, setCash] = useState('');
  const [msg, setMsg] = useState<{ text: string; kind?: 'ok' }>();
  const [open, setOpen] = useState(false);
  const sales = useGet<{ items: Sale[] }>(
    open ? `/agents/${a.id}/sales?from=${monthStart()}&to=${today()}` : undefined,
    [a.sales_count],
  );
  const label = a.name ?? a.msisdn;
  const post = async (path: string, body: unknown, reset: () => void) => {
    const r = await api('POST', path, body);
    if (r.status === 200) {
      reset();
      setMsg({ text: t('saved'), kind: 'ok' });
      props.onChange();
    } else
      setMsg({ text: fieldErrors(r.body)._ ?? Object.values(fieldErrors(r.body))[0] ?? String(r.status) });
  };
  return (
    <Card title={label} class="agent">
      <table class="statement" data-testid={`agent-${a.msisdn}`}>
        <tbody>
          <tr>
            <th scope="row">{t('float')}</th>
            <td data-field="float">{fcfa(a.float_fcfa)}</td>
          </tr>
          <tr>
            <th scope="row">{t('sold')}</th>
            <td data-field="sold">
              {fcfa(a.sold_fcfa)} ({a.sales_count})
            </td>
          </tr>
          <tr>
            <th scope="row">
              {t('commission')} ({a.commission_bp / 100} %)
            </th>
            <td data-field="commission">{fcfa(a.commission_fcfa)}</td>
          </tr>
          <tr>
            <th scope="row">{t('cash_received')}</th>
            <td data-field="cash-received">{fcfa(a.cash_received_fcfa)}</td>
          </tr>
          <tr class="sum">
            <th scope="row">{t('cash_owed')}</th>
            <td data-field="owed">{fcfa(a.owed_fcfa)}</td>
          </tr>
        </tbody>
      </table>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void post(`/agents/${a.id}/allot`, { float_fcfa: Number(float) }, () => setFloat(''));
        }}
      >
        <Field id={`float-${a.id}`} label="give_float">
          <input
            id={`float-${a.id}`}
            inputMode="numeric"
            required
            pattern="[0-9]+"
            value={float}
            onInput={(e) => setFloat(e.currentTarget.value)}
          />
        </Field>
        <button type="submit">{t('give')}</button>
      </form>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void post(`/agents/${a.id}/cash`, { amount_fcfa: Number(cash) }, () => setCash(''));
        }}
      >
        <Field id={`cash-${a.id}`} label="record_cash">
          <input
            id={`cash-${a.id}`}
            inputMode="numeric"
            required
            pattern="[0-9]+"
            value={cash}
            onInput={(e) => setCash(e.currentTarget.value)}
          />
        </Field>
        <button type="submit">{t('record')}</button>
      </form>
      <Message text={msg?.text} kind={msg?.kind} />
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{t('agent_sales', { name: label })}</summary>
        {!open ? null : !sales.data ? (
          <Loading error={sales.error} />
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('date')}</th>
                <th scope="col">{t('code_label')}</th>
                <th scope="col">{t('forfait')}</th>
                <th scope="col">{t('price')}</th>
                <th scope="col">{t('commission')}</th>
              </tr>
            </thead>
            <tbody>
              {sales.data.items.map((s) => (
                <tr key={s.code} data-code={s.code}>
                  <td>{dateTime(s.at)}</td>
                  <td>{s.code}</td>
                  <td>{s.forfait_name}</td>
                  <td>{fcfa(s.price_fcfa)}</td>
                  <td>{fcfa(s.commission_fcfa)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p>
          <button type="button" class="small secondary" onClick={() => void downloadSales(a.id)}>
            {t('csv')}
          </button>
        </p>
      </details>
    </Card>
  );
}

/** The month's sales of an agent as a CSV file (fetched with the session token, then saved). */
async function downloadSales(agentId: string): Promise<void> {
  const a = await api('GET', `/agents/${agentId}/sales/export?from=${monthStart()}&to=${today()}`);
  if (a.status !== 200) return;
  const url = URL.createObjectURL(new Blob([String(a.body)], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `agent-sales-${agentId.slice(0, 8)}-${today()}.csv`;
  link.click();
  URL.revokeObjectURL(url);
}

/** The reseller's agents: add one, give it float, see what it sold and owes, record its cash. */
export function Agents({ session }: { session: Session }) {
  const reseller = session.claims.reseller_id ?? '';
  const agents = useGet<{ items: Agent[] }>(`/agents?reseller_id=${reseller}`);
  const vlans = useGet<{ items: { nas_id: string; reseller_id: string; reseller_name: string }[] }>(
    '/network/vlans?page_size=100',
  );
  const hotspots = (vlans.data?.items ?? []).filter((v) => v.reseller_id === reseller);
  const [form, setForm] = useState({ msisdn: '', name: '', pct: '10', nas: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    setDone(false);
    const r = await api('POST', '/agents', {
      msisdn: form.msisdn,
      ...(form.name ? { name: form.name } : {}),
      commission_bp: Math.round(Number(form.pct) * 100),
      ...(form.nas ? { nas_ids: [form.nas] } : {}),
    });
    if (r.status === 201) {
      setForm({ msisdn: '', name: '', pct: form.pct, nas: '' });
      setErrors({});
      setDone(true);
      agents.reload();
    } else setErrors(fieldErrors(r.body));
  };
  return (
    <div>
      <Card title={t('agent_new')}>
        <form onSubmit={create}>
          <Field id="agent-msisdn" label="agent_phone" error={errors.msisdn}>
            <input
              id="agent-msisdn"
              type="tel"
              required
              autoComplete="off"
              value={form.msisdn}
              onInput={(e) => setForm({ ...form, msisdn: e.currentTarget.value })}
            />
          </Field>
          <Field id="agent-name" label="name" error={errors.name}>
            <input
              id="agent-name"
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </Field>
          <Field id="agent-pct" label="commission_pct" error={errors.commission_bp}>
            <input
              id="agent-pct"
              inputMode="decimal"
              required
              value={form.pct}
              onInput={(e) => setForm({ ...form, pct: e.currentTarget.value })}
            />
          </Field>
          <Field id="agent-nas" label="hotspot" error={errors.nas_ids}>
            <select
              id="agent-nas"
              value={form.nas}
              onChange={(e) => setForm({ ...form, nas: e.currentTarget.value })}
            >
              <option value="">{t('all_hotspots')}</option>
              {hotspots.map((h) => (
                <option key={h.nas_id} value={h.nas_id}>
                  {h.reseller_name} ({h.nas_id})
                </option>
              ))}
            </select>
          </Field>
          <button type="submit">{t('agent_new')}</button>
          <Message text={errors._} />
          <Message text={done ? t('agent_added') : undefined} kind="ok" />
        </form>
      </Card>
      {!agents.data ? (
        <Loading error={agents.error} />
      ) : agents.data.items.length === 0 ? (
        <p>{t('nothing')}</p>
      ) : (
        agents.data.items.map((a) => <AgentRow key={a.id} agent={a} onChange={agents.reload} />)
      )}
    </div>
  );
}

interface Sold {
  sale: Sale & { forfait_id: string };
  offer: { duration_hours: number; data_limit_mb: number };
  sms?: { to: string; sent: boolean };
  float_fcfa: number;
}

/** The agent's till: pick a forfait, sell, the code large on screen, a ticket or an SMS. */
export function Sell({ session }: { session: Session }) {
  const agentId = session.claims.agent_id ?? '';
  const forfaits = useGet<{ items: Forfait[] }>('/forfaits?page_size=100');
  const [forfaitId, setForfaitId] = useState('');
  const [buyer, setBuyer] = useState('');
  const [sold, setSold] = useState<Sold>();
  const [error, setError] = useState<string>();
  const [printing, setPrinting] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!forfaits.data) return <Loading error={forfaits.error} />;
  const chosen = forfaitId || forfaits.data.items[0]?.id || '';
  const forfait = forfaits.data.items.find((f) => f.id === chosen);
  if (printing && sold && forfait) {
    return (
      <PrintSheet
        format="t58"
        hotspot={{ nas_id: sold.sale.nas_id ?? '', name: 'WiFi' }}
        items={[
          { code: sold.sale.code, forfait: { ...forfait, ...sold.offer, price_fcfa: sold.sale.price_fcfa } },
        ]}
        onBack={() => setPrinting(false)}
      />
    );
  }
  const sell = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await api<Sold>('POST', `/agents/${agentId}/sales`, {
        forfait_id: chosen,
        ...(buyer.trim() ? { send_to: buyer.trim() } : {}),
      });
      if (r.status === 201) {
        setSold(r.body);
        setBuyer('');
      } else if (r.body.error?.code === 'ERR_AGENT_FLOAT_EXHAUSTED') setError(t('no_float'));
      else if (r.body.error?.code === 'ERR_AGENT_STOCK_EXHAUSTED') setError(t('no_stock'));
      else setError(fieldErrors(r.body).send_to ?? r.body.error?.message ?? String(r.status));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div>
      <form onSubmit={sell}>
        <Field id="sell-forfait" label="forfait">
          <select id="sell-forfait" value={chosen} onChange={(e) => setForfaitId(e.currentTarget.value)}>
            {forfaits.data.items.map((f) => (
              <option key={f.id} value={f.id}>
                {f.name} · {fcfa(f.price_fcfa)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="sell-buyer" label="buyer_phone">
          <input
            id="sell-buyer"
            type="tel"
            autoComplete="off"
            value={buyer}
            onInput={(e) => setBuyer(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={busy}>
          {t('sell')}
        </button>
        <Message text={error} />
      </form>
      {sold ? (
        <Card title={t('sold_code')} class="sold">
          <p class="big-code" data-testid="sold-code">
            {sold.sale.code}
          </p>
          <p>
            {sold.sale.forfait_name} · {fcfa(sold.sale.price_fcfa)}
          </p>
          <Message text={sold.sms?.sent ? t('sms_sent', { to: sold.sms.to }) : undefined} kind="ok" />
          <p>{t('float_left', { amount: fcfa(sold.float_fcfa) })}</p>
          <button type="button" onClick={() => setPrinting(true)}>
            {t('print_ticket')}
          </button>
        </Card>
      ) : null}
    </div>
  );
}

/** The agent's day and month: sold, commission, what it owes its reseller. */
export function AgentBalance({ session }: { session: Session }) {
  const agentId = session.claims.agent_id ?? '';
  const s = useGet<{ agent: Agent; today: Period; month: Period }>(`/agents/${agentId}`);
  if (!s.data) return <Loading error={s.error} />;
  const row = (title: string, p: Period) => (
    <Card title={title}>
      <table class="statement">
        <tbody>
          <tr>
            <th scope="row">{t('sold')}</th>
            <td>
              {fcfa(p.sold_fcfa)} ({p.sales_count})
            </td>
          </tr>
          <tr>
            <th scope="row">{t('commission')}</th>
            <td>{fcfa(p.commission_fcfa)}</td>
          </tr>
          <tr class="sum">
            <th scope="row">{t('due')}</th>
            <td>{fcfa(p.due_fcfa)}</td>
          </tr>
        </tbody>
      </table>
    </Card>
  );
  return (
    <div>
      {row(t('today'), s.data.today)}
      {row(t('month'), s.data.month)}
      <Card title={t('cash_owed')}>
        <p class="big-amount" data-testid="owed">
          {fcfa(s.data.agent.owed_fcfa)}
        </p>
        <p>{t('float_left', { amount: fcfa(s.data.agent.float_fcfa) })}</p>
      </Card>
    </div>
  );
}
