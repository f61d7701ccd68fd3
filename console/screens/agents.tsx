import { useEffect, useRef, useState } from 'preact/hooks';
import type { Agent } from '../answers.js';
import { api, errorText, fieldErrors } from '../api.js';
import { saveCsv } from '../csv.js';
import { dateTime, fcfa, t } from '../i18n.js';
import { forfaitOptions, hotspotOptions, useForfaits, useHotspots } from '../lists.js';
import { phoneExample } from '../places.js';
import type { Session } from '../session.js';
import { Card, Input, Loading, Message, useGet } from '../ui.js';
import { useWho } from '../who.js';
import { Select, Statement, useForm } from '../widgets.js';
import { FindSale, Handovers, History } from './handovers.js';
import { lazyScreen } from './lazy.js';
import { grouped, PrintSheet } from './print.js';

/** "Recharger un code": a chunk of its own, out of the dashboard's weight. */
const TopupCard = lazyScreen(() => import('./topup.js').then((m) => m.TopupCard));

interface Sale {
  at: string;
  code: string;
  forfait_name: string;
  price_fcfa: number;
  commission_fcfa: number;
  nas_id?: string;
  buyer_msisdn?: string;
  paid_from?: 'float' | 'stock';
  undone_at?: string;
}
interface Period {
  sold_fcfa: number;
  commission_fcfa: number;
  due_fcfa: number;
  sales_count: number;
}

const monthStart = () => `${new Date().toISOString().slice(0, 7)}-01`;
const today = () => new Date().toISOString().slice(0, 10);

/** One agent's row: its money, its handovers (float, cash, moves), and its sales of the month. */
function AgentRow(props: {
  agent: Agent;
  agents: Agent[];
  forfaitName: (id: string) => string;
  onChange: () => void;
}) {
  const a = props.agent;
  const [open, setOpen] = useState(false);
  const sales = useGet<{ items: Sale[] }>(
    open ? `/agents/${a.id}/sales?from=${monthStart()}&to=${today()}` : undefined,
    [a.sales_count],
  );
  const label = a.name ?? a.msisdn;
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
      <Handovers agent={a} agents={props.agents} forfaitName={props.forfaitName} onChange={props.onChange} />
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{t('agent_sales', { name: label })}</summary>
        {!open ? null : !sales.data ? (
          <Loading error={sales.error} />
        ) : (
          // A list, not a five-column table: a phone's 360 px hold a sale on two lines.
          <ul class="rows sales">
            {sales.data.items.map((s) => (
              <li key={`${s.at}${s.code}`} data-code={s.code} class={s.undone_at ? 'undone' : undefined}>
                <span>
                  {dateTime(s.at)} · <span class="nowrap">{grouped(s.code)}</span> · {s.forfait_name}
                  {s.undone_at ? <em> ({t('sale_undone_mark')})</em> : null}
                </span>
                <span class="nowrap">
                  {fcfa(s.price_fcfa)} · {t('commission')} {fcfa(s.commission_fcfa)}
                </span>
              </li>
            ))}
          </ul>
        )}
        <p>
          <button type="button" class="small secondary" onClick={() => void downloadSales(a.id, a.name)}>
            {t('csv')}
          </button>
        </p>
      </details>
    </Card>
  );
}

/** The month's sales of an agent as a CSV file (fetched with the session token, then saved). */
async function downloadSales(agentId: string, name: string | undefined): Promise<void> {
  const who = (name ?? agentId.slice(0, 8)).replace(/[^\p{L}\p{N}]+/gu, '-');
  await saveCsv(
    `/agents/${agentId}/sales/export?from=${monthStart()}&to=${today()}`,
    `ventes-${who}-${today()}.csv`,
  );
}

/** The reseller's agents: add one, give it float, see what it sold and owes, record its cash. */
export function Agents({ session }: { session: Session }) {
  const reseller = session.claims.reseller_id ?? '';
  const who = useWho();
  const agents = useGet<{ items: Agent[] }>(`/agents?reseller_id=${reseller}`);
  // While the list reloads after a handover, the rows stay (with their messages and undo button).
  const kept = useRef<{ items: Agent[] }>();
  if (agents.data) kept.current = agents.data;
  const list = agents.data ?? kept.current;
  const hotspots = useHotspots(reseller);
  const forfaits = useForfaits(session, 'all');
  const forfaitName = (id: string) => forfaits.data?.items.find((f) => f.id === id)?.name ?? id.slice(0, 8);
  const form = useForm('agent', { msisdn: '', name: '', pct: '10', nas: '' });
  const { values: f, field } = form;
  const [done, setDone] = useState(false);
  const create = form.submit(async () => {
    setDone(false);
    const r = await api('POST', '/agents', {
      msisdn: f.msisdn,
      ...(f.name ? { name: f.name } : {}),
      commission_bp: Math.round(Number(f.pct) * 100),
      ...(f.nas ? { nas_ids: [f.nas] } : {}),
    });
    if (form.answered(r, 201)) {
      form.setValues({ msisdn: '', name: '', pct: f.pct, nas: '' });
      setDone(true);
      agents.reload();
    }
  });
  return (
    <div>
      <Card title={t('agent_new')}>
        <form onSubmit={create}>
          <Input
            label="agent_phone"
            type="tel"
            required
            autoComplete="off"
            hint={phoneExample(who.country)}
            {...field('msisdn')}
          />
          <Input label="name" {...field('name')} />
          <Input
            label="commission_pct"
            inputMode="decimal"
            required
            {...field('pct', { error: 'commission_bp' })}
          />
          <Select
            label="hotspot"
            first={<option value="">{t('all_hotspots')}</option>}
            options={hotspotOptions(hotspots)}
            {...field('nas', { error: 'nas_ids' })}
          />
          <button type="submit">{t('agent_new')}</button>
          <Message text={form.errors._} />
          <Message text={done ? t('agent_added') : undefined} kind="ok" />
        </form>
      </Card>
      {!list ? (
        <Loading error={agents.error} />
      ) : list.items.length === 0 ? (
        <p>{t('nothing')}</p>
      ) : (
        list.items.map((a) => (
          <AgentRow
            key={a.id}
            agent={a}
            agents={list.items}
            forfaitName={forfaitName}
            onChange={agents.reload}
          />
        ))
      )}
    </div>
  );
}

/** A sale is undone within the minutes of a handover's undo (the API's HANDOVER_UNDO_S). */
const UNDO_MS = 5 * 60_000;

interface Sold {
  sale: Sale & { forfait_id: string };
  offer: { duration_hours: number; data_limit_mb: number };
  sms?: { to: string; sent: boolean };
  float_fcfa: number;
}

/** The agent's till: pick a forfait, sell, the code large on screen, a ticket or an SMS. */
export function Sell({ session }: { session: Session }) {
  const agentId = session.claims.agent_id ?? '';
  const who = useWho();
  const forfaits = useForfaits(session);
  const form = useForm('sell', { forfait: '', buyer: '' });
  const [sold, setSold] = useState<Sold>();
  const [printing, setPrinting] = useState(false);
  // The question asked before a sale ("Vendre Pass Jour pour 300 FCFA ?"), as for a handover.
  const [asking, setAsking] = useState<string>();
  // Said once the sale is undone (or why it cannot be); the undo button goes with its minutes.
  const [undo, setUndo] = useState<{ text: string; kind?: 'ok' }>();
  const [undoable, setUndoable] = useState(false);
  useEffect(() => {
    if (!sold || sold.sale.undone_at) return setUndoable(false);
    const left = Date.parse(sold.sale.at) + UNDO_MS - Date.now();
    setUndoable(left > 0);
    const timer = setTimeout(() => setUndoable(false), Math.max(0, left));
    return () => clearTimeout(timer);
  }, [sold]);
  if (!forfaits.data) return <Loading error={forfaits.error} />;
  const chosen = form.values.forfait || forfaits.data.items[0]?.id || '';
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
  const ask = (e: Event) => {
    e.preventDefault();
    if (!forfait) return;
    const buyer = form.values.buyer.trim();
    const words = { forfait: forfait.name, price: fcfa(forfait.price_fcfa), phone: buyer };
    setAsking(t(buyer ? 'confirm_sale_sms' : 'confirm_sale', words));
  };
  const undoSale = async () => {
    if (!sold) return;
    const r = await api<{ sale: Sale; float_fcfa: number }>(
      'POST',
      `/agents/${agentId}/sales/${sold.sale.code}/undo`,
    );
    setUndoable(false);
    if (r.status !== 200) return setUndo({ text: errorText(r.body, r.status) });
    setSold({
      ...sold,
      sale: { ...sold.sale, undone_at: r.body.sale.undone_at },
      float_fcfa: r.body.float_fcfa,
    });
    const code = grouped(sold.sale.code);
    setUndo({
      text:
        r.body.sale.paid_from === 'stock'
          ? t('sale_undone_stock', { code })
          : t('sale_undone_float', { code, amount: fcfa(sold.sale.price_fcfa) }),
      kind: 'ok',
    });
  };
  const sell = form.submit(async () => {
    form.setErrors({});
    setAsking(undefined);
    setUndo(undefined);
    const buyer = form.values.buyer.trim();
    const r = await api<Sold>('POST', `/agents/${agentId}/sales`, {
      forfait_id: chosen,
      ...(buyer ? { send_to: buyer } : {}),
    });
    const refused = r.body.error?.code;
    if (r.status === 201) {
      setSold(r.body);
      form.setValues((v) => ({ ...v, buyer: '' }));
    } else if (refused === 'ERR_AGENT_FLOAT_EXHAUSTED') form.setErrors({ _: t('no_float') });
    else if (refused === 'ERR_AGENT_STOCK_EXHAUSTED') form.setErrors({ _: t('no_stock') });
    else form.setErrors({ _: fieldErrors(r.body).send_to ?? errorText(r.body, r.status) });
  });
  return (
    <div>
      <form onSubmit={asking ? sell : ask}>
        <Select
          label="forfait"
          options={forfaitOptions(forfaits.data.items)}
          {...form.field('forfait')}
          value={chosen}
        />
        <Input
          label="buyer_phone"
          type="tel"
          autoComplete="off"
          hint={phoneExample(who.country)}
          {...form.field('buyer')}
        />
        {asking ? (
          <fieldset class="confirm">
            <legend>{asking}</legend>
            <span class="buttons">
              <button type="submit" disabled={form.busy}>
                {t('yes_sell')}
              </button>
              <button type="button" class="secondary" onClick={() => setAsking(undefined)}>
                {t('cancel')}
              </button>
            </span>
          </fieldset>
        ) : (
          <button type="submit" disabled={form.busy}>
            {t('sell')}
          </button>
        )}
        <Message text={form.errors._} />
      </form>
      {/* The code just sold right under the till, before the search of the day's sales. */}
      {sold ? (
        <Card title={t('sold_code')} class="sold">
          {/* Grouped by four as the cards print it: read aloud or typed without a slip. */}
          <p class={sold.sale.undone_at ? 'big-code undone' : 'big-code'} data-testid="sold-code">
            {grouped(sold.sale.code)}
          </p>
          <p>
            {sold.sale.forfait_name} · {fcfa(sold.sale.price_fcfa)}
          </p>
          <Message text={sold.sms?.sent ? t('sms_sent', { to: sold.sms.to }) : undefined} kind="ok" />
          <p>{t('float_left', { amount: fcfa(sold.float_fcfa) })}</p>
          {sold.sale.undone_at ? null : (
            <button type="button" onClick={() => setPrinting(true)}>
              {t('print_ticket')}
            </button>
          )}
          {undoable ? (
            <button type="button" class="secondary" onClick={() => void undoSale()}>
              {t('undo_sale')}
            </button>
          ) : null}
          <Message text={undo?.text} kind={undo?.kind} />
        </Card>
      ) : null}
      <FindSale agentId={agentId} />
      <TopupCard
        forfaits={forfaits.data.items}
        path={() => `/agents/${agentId}/topups`}
        prefix="agent-topup"
      />
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
      <Card title={t('handovers')}>
        <History agentId={agentId} agents={[]} version={s.data.agent} shown />
      </Card>
    </div>
  );
}
