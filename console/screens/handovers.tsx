import { useEffect, useState } from 'preact/hooks';
import type { Agent } from '../answers.js';
import { api, fieldErrors } from '../api.js';
import { dateTime, fcfa, type Key, t } from '../i18n.js';
import { Input, Loading, Message, useGet } from '../ui.js';
import { Select } from '../widgets.js';

/**
 * What a reseller hands its agent and takes back, each asked first and undoable for five minutes
 * (the server keeps the window): float given, cash received, float or codes moved to another
 * agent or back to the reseller; and the agent's history of them.
 */
interface Handover {
  id: string;
  at: string;
  kind: 'float' | 'stock' | 'cash' | 'move';
  float_fcfa?: number;
  forfait_id?: string;
  count?: number;
  cash_fcfa?: number;
  to_agent_id?: string;
  from_agent_id?: string;
  undone_at?: string;
  undo_until: string;
}
type Done = Agent & { handover: Handover };

/** A server refusal in the reader's words. */
function refusal(body: { error?: { code?: string } }): string {
  const words: Record<string, Key> = {
    ERR_UNDO_TOO_LATE: 'err_undo_late',
    ERR_AGENT_FLOAT_EXHAUSTED: 'err_not_held',
    ERR_AGENT_STOCK_EXHAUSTED: 'err_not_held',
    ERR_AGENT_CASH_OVER_OWED: 'err_over_owed',
  };
  const key = words[body.error?.code ?? ''];
  return key ? t(key) : (fieldErrors(body)._ ?? Object.values(fieldErrors(body))[0] ?? t('err_server'));
}

/** A form that asks before it sends: its fields, then the question with "yes" and "cancel". */
function Asked(props: {
  id: string;
  question: () => string | undefined;
  send: () => Promise<boolean>;
  children: preact.ComponentChildren;
  button: Key;
}) {
  const [asking, setAsking] = useState<string>();
  if (asking)
    return (
      <fieldset class="confirm">
        <legend>{asking}</legend>
        <span class="buttons">
          <button type="button" onClick={() => void props.send().finally(() => setAsking(undefined))}>
            {t('yes_confirm')}
          </button>
          <button type="button" class="secondary" onClick={() => setAsking(undefined)}>
            {t('cancel')}
          </button>
        </span>
      </fieldset>
    );
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        setAsking(props.question());
      }}
    >
      {props.children}
      <button type="submit">{t(props.button)}</button>
    </form>
  );
}

/** The reseller's handovers with one agent: give float, record cash, move, and undo the last one. */
export function Handovers(props: {
  agent: Agent;
  agents: Agent[];
  forfaitName: (id: string) => string;
  onChange: () => void;
}) {
  const a = props.agent;
  const name = a.name ?? a.msisdn;
  const [float, setFloat] = useState('');
  const [cash, setCash] = useState('');
  const [move, setMove] = useState({ to: '', what: 'float', n: '' });
  const [msg, setMsg] = useState<{ text: string; kind?: 'ok' }>();
  const [last, setLast] = useState<Handover>();
  // The undo button goes when its window ends.
  useEffect(() => {
    if (!last) return;
    const left = Date.parse(last.undo_until) - Date.now();
    const timer = setTimeout(() => setLast(undefined), Math.max(0, left));
    return () => clearTimeout(timer);
  }, [last]);
  const post = async (path: string, body?: unknown): Promise<boolean> => {
    const r = await api<Done>('POST', path, body);
    if (r.status !== 200) {
      setMsg({ text: refusal(r.body) });
      return false;
    }
    props.onChange();
    return true;
  };
  const handed = async (path: string, body: unknown, reset: () => void) => {
    const r = await api<Done>('POST', path, body);
    if (r.status !== 200) {
      setMsg({ text: refusal(r.body) });
      return false;
    }
    reset();
    setLast(r.body.handover);
    setMsg({ text: t('handover_done'), kind: 'ok' });
    props.onChange();
    return true;
  };
  const others = props.agents.filter((o) => o.id !== a.id && o.status !== 'invited');
  const stocked = Object.entries(a.stock).filter(([, n]) => n > 0);
  const destination = move.to
    ? (others.find((o) => o.id === move.to)?.name ?? t('another_agent'))
    : t('to_reseller');
  return (
    <div class="handovers">
      <Asked
        id={`float-${a.id}`}
        button="give"
        question={() =>
          Number(float) > 0 ? t('confirm_float', { amount: fcfa(Number(float)), name }) : undefined
        }
        send={() => handed(`/agents/${a.id}/allot`, { float_fcfa: Number(float) }, () => setFloat(''))}
      >
        <Input
          id={`float-${a.id}`}
          label="give_float"
          inputMode="numeric"
          required
          pattern="[0-9]+"
          value={float}
          onValue={setFloat}
        />
      </Asked>
      <Asked
        id={`cash-${a.id}`}
        button="record"
        question={() =>
          Number(cash) > 0 ? t('confirm_cash', { amount: fcfa(Number(cash)), name }) : undefined
        }
        send={() => handed(`/agents/${a.id}/cash`, { amount_fcfa: Number(cash) }, () => setCash(''))}
      >
        <Input
          id={`cash-${a.id}`}
          label="record_cash"
          inputMode="numeric"
          required
          pattern="[0-9]+"
          value={cash}
          onValue={setCash}
        />
      </Asked>
      <details>
        <summary>{t('move_title')}</summary>
        <Asked
          id={`move-${a.id}`}
          button="move"
          question={() =>
            Number(move.n) > 0
              ? t('confirm_move', {
                  what: move.what === 'float' ? fcfa(Number(move.n)) : t('codes_n', { n: move.n }),
                  name,
                  to: destination,
                })
              : undefined
          }
          send={() =>
            handed(
              `/agents/${a.id}/move`,
              {
                ...(move.to ? { to_agent_id: move.to } : {}),
                ...(move.what === 'float'
                  ? { float_fcfa: Number(move.n) }
                  : { forfait_id: move.what, count: Number(move.n) }),
              },
              () => setMove((m) => ({ ...m, n: '' })),
            )
          }
        >
          <Select
            id={`move-to-${a.id}`}
            label="move_to"
            value={move.to}
            onValue={(to) => setMove((m) => ({ ...m, to }))}
            first={<option value="">{t('to_reseller')}</option>}
            options={others.map((o) => [o.id, o.name ?? o.msisdn] as const)}
          />
          <Select
            id={`move-what-${a.id}`}
            label="move_what"
            value={move.what}
            onValue={(what) => setMove((m) => ({ ...m, what }))}
            options={[
              ['float', t('float')],
              ...stocked.map(([id, n]) => [id, t('codes_of', { n, name: props.forfaitName(id) })] as const),
            ]}
          />
          <Input
            id={`move-n-${a.id}`}
            label="move_amount"
            inputMode="numeric"
            required
            pattern="[0-9]+"
            value={move.n}
            onValue={(n) => setMove((m) => ({ ...m, n }))}
          />
        </Asked>
      </details>
      <Message text={msg?.text} kind={msg?.kind} />
      {last ? (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void post(`/agents/${a.id}/handovers/${last.id}/undo`).then((ok) => {
              setLast(undefined);
              if (ok) setMsg({ text: t('undone'), kind: 'ok' });
            })
          }
        >
          {t('undo')}
        </button>
      ) : null}
      <History agentId={a.id} agents={props.agents} version={a} forfaitName={props.forfaitName} />
    </div>
  );
}

/** One handover in words: what it did to this agent. */
function said(h: Handover, nameOf: (id: string) => string, forfaitName?: (id: string) => string): string {
  if (h.kind === 'cash') return `${t('h_cash')} · ${fcfa(h.cash_fcfa ?? 0)}`;
  const codes = t('codes_n', { n: Math.abs(h.count ?? 0) });
  const what = h.float_fcfa
    ? fcfa(Math.abs(h.float_fcfa))
    : forfaitName && h.forfait_id
      ? `${codes} ${forfaitName(h.forfait_id)}`
      : codes;
  if (h.kind === 'float' || h.kind === 'stock') return `${t('h_given')} · ${what}`;
  if (h.from_agent_id) return `${t('h_in', { from: nameOf(h.from_agent_id) })} · ${what}`;
  if (h.to_agent_id) return `${t('h_out', { to: nameOf(h.to_agent_id) })} · ${what}`;
  return `${t('h_back')} · ${what}`;
}

/** An agent's handovers, newest first: loaded when opened, or at once when `shown` (its own screen). */
export function History(props: {
  agentId: string;
  agents: Agent[];
  version: unknown;
  shown?: boolean;
  forfaitName?: (id: string) => string;
}) {
  const [open, setOpen] = useState(props.shown === true);
  const list = useGet<{ items: Handover[] }>(open ? `/agents/${props.agentId}/handovers` : undefined, [
    props.version,
  ]);
  const nameOf = (id: string) => {
    const o = props.agents.find((x) => x.id === id);
    return o ? (o.name ?? o.msisdn) : t('another_agent');
  };
  const body = !open ? null : !list.data ? (
    <Loading error={list.error} />
  ) : list.data.items.length === 0 ? (
    <p>{t('nothing')}</p>
  ) : (
    <ul class="history">
      {list.data.items.map((h) => (
        <li key={h.id} data-kind={h.kind} class={h.undone_at ? 'undone' : undefined}>
          <span>{dateTime(h.at)}</span> {said(h, nameOf, props.forfaitName)}
          {h.undone_at ? <em> ({t('h_undone')})</em> : null}
        </li>
      ))}
    </ul>
  );
  if (props.shown) return body;
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{t('handovers')}</summary>
      {body}
    </details>
  );
}

interface FoundSale {
  at: string;
  code: string;
  forfait_name: string;
  price_fcfa: number;
  buyer_msisdn?: string;
}

/** The cashier's search: today's sales of a code (as printed) or of a buyer's number. */
export function FindSale(props: { agentId: string }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<FoundSale[]>();
  const [error, setError] = useState<string>();
  const day = new Date().toISOString().slice(0, 10);
  return (
    <form
      class="find-sale"
      onSubmit={(e) => {
        e.preventDefault();
        void api<{ items: FoundSale[] }>(
          'GET',
          `/agents/${props.agentId}/sales?from=${day}&to=${day}&q=${encodeURIComponent(q.trim())}`,
        ).then((r) => {
          if (r.status === 200) {
            setFound(r.body.items);
            setError(undefined);
          } else setError(refusal(r.body));
        });
      }}
    >
      <Input id="find-sale" label="find_sale" type="search" required value={q} onValue={setQ} />
      <button type="submit">{t('find')}</button>
      <Message text={error} />
      {found === undefined ? null : found.length === 0 ? (
        <p>{t('found_none')}</p>
      ) : (
        <ul class="history" aria-live="polite">
          {found.map((s) => (
            <li key={s.code + s.at} data-code={s.code}>
              <strong class="code">{s.code}</strong> {s.forfait_name} · {fcfa(s.price_fcfa)} ·{' '}
              {dateTime(s.at)}
              {s.buyer_msisdn ? ` · ${s.buyer_msisdn}` : ''}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
