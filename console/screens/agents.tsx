import { useState } from 'preact/hooks';
import { forfaitOptions, hotspotOptions, useForfaits, useHotspots } from '../answers.js';
import { api, fieldErrors } from '../api.js';
import { dateTime, fcfa, type Key, t } from '../i18n.js';
import type { Session } from '../session.js';
import { Card, Input, Loading, Message, Select, Statement, Table, useGet } from '../ui.js';
import { PrintSheet } from './print.js';

/** An agent as its reseller sees it: what it holds, sold, earned, paid and owes. */
interface Agent {
  id: string;
  msisdn: string;
  name?: string;
  /** Commission in basis points of each sale's price (1000 = 10 %). */
  commission_bp: number;
  float_fcfa: number;
  sales_count: number;
  sold_fcfa: number;
  commission_fcfa: number;
  cash_received_fcfa: number;
  owed_fcfa: number;
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
interface Period {
  sold_fcfa: number;
  commission_fcfa: number;
  due_fcfa: number;
  sales_count: number;
}

const monthStart = () => `${new Date().toISOString().slice(0, 7)}-01`;
const today = () => new Date().toISOString().slice(0, 10);

/** A form of one amount and its button (give float, record cash): `send` answers whether it took. */
function AmountForm(props: {
  id: string;
  label: Key;
  button: Key;
  send: (amount: number) => Promise<boolean>;
}) {
  const [amount, setAmount] = useState('');
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void props.send(Number(amount)).then((ok) => ok && setAmount(''));
      }}
    >
      <Input
        id={props.id}
        label={props.label}
        inputMode="numeric"
        required
        pattern="[0-9]+"
        value={amount}
        onValue={setAmount}
      />
      <button type="submit">{t(props.button)}</button>
    </form>
  );
}

/** One agent's row: its money, a float to give, cash to record, and its sales of the month. */
function AgentRow(props: { agent: Agent; onChange: () => void }) {
  const a = props.agent;
  const [msg, setMsg] = useState<{ text: string; kind?: 'ok' }>();
  const [open, setOpen] = useState(false);
  const sales = useGet<{ items: Sale[] }>(
    open ? `/agents/${a.id}/sales?from=${monthStart()}&to=${today()}` : undefined,
    [a.sales_count],
  );
  const label = a.name ?? a.msisdn;
  const post = async (path: string, body: unknown) => {
    const r = await api('POST', path, body);
    if (r.status === 200) {
      setMsg({ text: t('saved'), kind: 'ok' });
      props.onChange();
    } else
      setMsg({ text: fieldErrors(r.body)._ ?? Object.values(fieldErrors(r.body))[0] ?? String(r.status) });
    return r.status === 200;
  };
  return (
    <Card title={label} class="agent">
      <Statement
        testid={`agent-${a.msisdn}`}
        lines={[
          { label: t('float'), value: fcfa(a.float_fcfa), field: 'float' },
          { label: t('sold'), value: `${fcfa(a.sold_fcfa)} (${a.sales_count})`, field: 'sold' },
          {
            label: `${t('commission')} (${a.commission_bp / 100} %)`,
            value: fcfa(a.commission_fcfa),
            field: 'commission',
          },
          { label: t('cash_received'), value: fcfa(a.cash_received_fcfa), field: 'cash-received' },
          { label: t('cash_owed'), value: fcfa(a.owed_fcfa), field: 'owed', sum: true },
        ]}
      />
      <AmountForm
        id={`float-${a.id}`}
        label="give_float"
        button="give"
        send={(n) => post(`/agents/${a.id}/allot`, { float_fcfa: n })}
      />
      <AmountForm
        id={`cash-${a.id}`}
        label="record_cash"
        button="record"
        send={(n) => post(`/agents/${a.id}/cash`, { amount_fcfa: n })}
      />
      <Message text={msg?.text} kind={msg?.kind} />
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{t('agent_sales', { name: label })}</summary>
        {!open ? null : !sales.data ? (
          <Loading error={sales.error} />
        ) : (
          <Table head={['date', 'code_label', 'forfait', 'price', 'commission']}>
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
          </Table>
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
  const hotspots = useHotspots(reseller);
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
          <Input
            id="agent-msisdn"
            label="agent_phone"
            error={errors.msisdn}
            type="tel"
            required
            autoComplete="off"
            value={form.msisdn}
            onValue={(msisdn) => setForm({ ...form, msisdn })}
          />
          <Input
            id="agent-name"
            label="name"
            error={errors.name}
            value={form.name}
            onValue={(name) => setForm({ ...form, name })}
          />
          <Input
            id="agent-pct"
            label="commission_pct"
            error={errors.commission_bp}
            inputMode="decimal"
            required
            value={form.pct}
            onValue={(pct) => setForm({ ...form, pct })}
          />
          <Select
            id="agent-nas"
            label="hotspot"
            error={errors.nas_ids}
            value={form.nas}
            onValue={(nas) => setForm({ ...form, nas })}
            first={<option value="">{t('all_hotspots')}</option>}
            options={hotspotOptions(hotspots)}
          />
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
  const forfaits = useForfaits();
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
        <Select
          id="sell-forfait"
          label="forfait"
          value={chosen}
          onValue={setForfaitId}
          options={forfaitOptions(forfaits.data.items)}
        />
        <Input
          id="sell-buyer"
          label="buyer_phone"
          type="tel"
          autoComplete="off"
          value={buyer}
          onValue={setBuyer}
        />
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
      <Statement
        lines={[
          { label: t('sold'), value: `${fcfa(p.sold_fcfa)} (${p.sales_count})` },
          { label: t('commission'), value: fcfa(p.commission_fcfa) },
          { label: t('due'), value: fcfa(p.due_fcfa), sum: true },
        ]}
      />
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
