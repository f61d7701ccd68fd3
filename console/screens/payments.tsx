import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { dateTime, fcfa, type Key, t } from '../i18n.js';
import { useResellerVlans } from '../lists.js';
import type { Session } from '../session.js';
import { failure, Loading, Message } from '../ui.js';
import { More, Select, Table, usePaged } from '../widgets.js';

interface Payment {
  id: string;
  forfait_name: string;
  amount_fcfa: number;
  status: 'pending' | 'completed' | 'failed' | 'expired';
  created_at: string;
  nas_id?: string;
  msisdn?: string;
  /** The buyer's mobile-money operator (`orange_money`...). */
  provider?: string;
  /** Gateway deliveries refused for it (amount, currency or provider mismatch). */
  refusal_count: number;
  /** Completed, and its access code never used: "payé, pas connecté". */
  paid_not_connected?: boolean;
}

/** The mobile-money operators by the names their customers know (as the portal offers them). */
const PROVIDER_NAMES: Record<string, string> = {
  orange_money: 'Orange Money',
  mtn_momo: 'MTN MoMo',
  moov_money: 'Moov Money',
  wave: 'Wave',
};

/**
 * "Renvoyer le code": texts a paid code to its buyer again (at most 3 times a payment, the
 * server counts), then says it was sent and how many sends are left.
 */
function Resend(props: { id: string }) {
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string>();
  const [error, setError] = useState<string>();
  if (sent) return <Message text={sent} kind="ok" />;
  const resend = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const a = await api<{ resends_left: number }>(
        'POST',
        `/payments/${encodeURIComponent(props.id)}/resend-code`,
        {},
      );
      if (a.status === 200) setSent(t('code_resent', { n: a.body.resends_left }));
      else setError(errorText(a.body, a.status));
    } catch (err) {
      setError(failure(err));
    }
    setBusy(false);
  };
  return (
    <>
      <button type="button" class="small" disabled={busy} onClick={resend}>
        {t('resend_code')}
      </button>
      <Message text={error} />
    </>
  );
}

/**
 * The reseller's payments, newest first, a page at a time. An operator picks the reseller, and
 * may keep only the payments whose gateway deliveries did not match (amount, currency, provider).
 */
export function Payments({ session }: { session: Session }) {
  const isAdmin = session.claims.role === 'admin';
  const [picked, setPicked] = useState('');
  const [onlyMismatches, setOnlyMismatches] = useState(false);
  const resellers = useResellerVlans(isAdmin);
  const reseller = session.claims.reseller_id ?? (picked || resellers.data?.items[0]?.reseller_id);
  const list = usePaged<Payment>(reseller ? `/payments?reseller_id=${reseller}&limit=50` : undefined);
  const picker = isAdmin ? (
    <div class="pair no-print">
      <Select
        id="pay-reseller"
        label="reseller"
        value={reseller}
        onValue={setPicked}
        options={(resellers.data?.items ?? []).map((r) => [r.reseller_id, r.reseller_name] as const)}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={onlyMismatches}
          onChange={(e) => setOnlyMismatches(e.currentTarget.checked)}
        />{' '}
        {t('mismatches')}
      </label>
    </div>
  ) : null;
  if (list.loading)
    return (
      <>
        {picker}
        <Loading error={list.error ?? resellers.error} />
      </>
    );
  const rows = list.items.filter((p) => !onlyMismatches || p.refusal_count > 0);
  if (!rows.length)
    return (
      <>
        {picker}
        <p>{t('nothing')}</p>
      </>
    );
  return (
    <div>
      {picker}
      <Table class="list" head={['date', 'forfait', 'amount', 'status']}>
        {rows.map((p) => (
          // One body a payment: its row, and under it (the whole width, for a thumb at 360 px)
          // the button that texts a paid, unused code again.
          <tbody key={p.id} data-payment={p.id}>
            <tr class={p.paid_not_connected ? 'lead' : ''}>
              <td>{dateTime(p.created_at)}</td>
              <td>
                {p.forfait_name}
                {p.msisdn ? <small> · {p.msisdn}</small> : null}
              </td>
              <td>
                <span class="nowrap">{fcfa(p.amount_fcfa)}</span>
                {p.provider ? (
                  <small class="provider">{PROVIDER_NAMES[p.provider] ?? p.provider}</small>
                ) : null}
              </td>
              <td>
                <span class={`badge ${p.paid_not_connected ? 'warn' : p.status}`}>
                  {p.paid_not_connected ? t('paid_not_connected') : t(`st_${p.status}` as Key)}
                </span>
                {p.refusal_count > 0 ? (
                  <span class="badge failed">
                    {t('mismatches')}: {p.refusal_count}
                  </span>
                ) : null}
              </td>
            </tr>
            {p.paid_not_connected ? (
              <tr>
                <td colSpan={4}>
                  <Resend id={p.id} />
                </td>
              </tr>
            ) : null}
          </tbody>
        ))}
      </Table>
      <More onClick={list.more} />
    </div>
  );
}
