import { useEffect, useState } from 'preact/hooks';
import type { Forfait } from '../answers.js';
import { api, errorText } from '../api.js';
import { saveCsv } from '../csv.js';
import { dateTime, type Key, lang, t } from '../i18n.js';
import {
  forfaitOptions,
  hotspotOptions,
  resellerOptions,
  useForfaits,
  useHotspots,
  useResellerVlans,
} from '../lists.js';
import type { Session } from '../session.js';
import { Card, failure, Input, Loading, Message } from '../ui.js';
import { Confirm, Select, useForm } from '../widgets.js';
import { lazyScreen } from './lazy.js';
import { type Format, type Printable, PrintSheet } from './print.js';

/** "Recharger un code": a chunk of its own, out of the dashboard's weight. */
const TopupCard = lazyScreen(() => import('./topup.js').then((m) => m.TopupCard));

interface Voucher {
  code: string;
  forfait_id: string;
  status: 'active' | 'redeemed' | 'expired';
  batch_id: string;
  created_at: string;
  /** Its code was revoked: refused at redemption and at login (it stays in the stock's list). */
  revoked_at?: string;
}

/** Every active voucher (pages of 100 followed by cursor), for the stock by forfait and batch. */
async function activeVouchers(resellerId: string): Promise<Voucher[]> {
  const out: Voucher[] = [];
  let cursor = '';
  for (let i = 0; i < 20; i++) {
    const q = `/vouchers?reseller_id=${resellerId}&status=active&page_size=100${cursor ? `&cursor=${cursor}` : ''}`;
    const a = await api<{ items: Voucher[]; next_cursor?: string }>('GET', q);
    if (a.status !== 200) break;
    out.push(...a.body.items);
    if (!a.body.next_cursor) break;
    cursor = a.body.next_cursor;
  }
  return out;
}

/** The ways a batch prints: A4 sheets of 9, 21 or 40 cards, or tickets of a 58 or 80 mm thermal printer. */
const PRINTS: [Format, Key][] = [
  ['a4', 'print_a4_9'],
  ['a4-21', 'print_a4_21'],
  ['a4-40', 'print_a4_40'],
  ['t58', 'print_58'],
  ['t80', 'print_80'],
];

/** The characters a code is drawn from (functions/billing/codes.ts): 31, without look-alikes. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const LENGTHS = ['8', '9', '10', '11', '12'];
const MIN_RANDOM = 8;

/**
 * The odds of a guess: a code of `length` characters, `prefix` fixed, the rest drawn from 31;
 * one try hits one of the batch's `n` codes with probability n / 31^random.
 */
function odds(length: number, prefix: string, n: number): { random: number; text: string } {
  const random = length - prefix.length;
  const oneIn = 31 ** random / Math.max(1, n);
  const text = new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', {
    notation: 'compact',
    compactDisplay: 'long',
    maximumFractionDigits: 1,
  }).format(oneIn);
  return { random, text };
}

export function Codes({ session }: { session: Session }) {
  const isAdmin = session.claims.role === 'admin';
  // Named as the API names them: its errors come back under these names.
  const form = useForm(undefined, {
    reseller_id: session.claims.reseller_id ?? '',
    forfait_id: '',
    n: '20',
    code_length: '10',
    prefix: '',
  });
  const { field, errors } = form;
  const reseller = form.values.reseller_id.trim();
  const forfaits = useForfaits(session);
  const hotspots = useHotspots(reseller || undefined);
  // An operator picks the reseller by its name.
  const vlans = useResellerVlans(isAdmin);
  const [done, setDone] = useState<string>();
  const [stock, setStock] = useState<Voucher[]>();
  const [printing, setPrinting] = useState<{ format: Format; items: Printable[] }>();
  const [hotspot, setHotspot] = useState('');
  const [format, setFormat] = useState<Format>('a4');
  const [lastBatch, setLastBatch] = useState<string>();

  const loadStock = () => {
    if (reseller) void activeVouchers(reseller).then(setStock);
  };
  useEffect(loadStock, [reseller]);

  if (!forfaits.data) return <Loading error={forfaits.error} />;
  const byId = Object.fromEntries(forfaits.data.items.map((f) => [f.id, f]));
  const chosen = form.values.forfait_id || forfaits.data.items[0]?.id || '';
  const place = hotspots.find((h) => h.nas_id === hotspot) ?? hotspots[0];

  const prefix = form.values.prefix.trim().toUpperCase();
  const guess = odds(Number(form.values.code_length), prefix, Number(form.values.n) || 1);
  const generate = form.submit(async () => {
    setDone(undefined);
    const a = await api<{ batch_id: string; total: number }>('POST', '/vouchers/batches', {
      forfait_id: chosen,
      reseller_id: reseller,
      n: Number(form.values.n),
      code_length: Number(form.values.code_length),
      ...(prefix ? { prefix } : {}),
    });
    if (form.answered(a, 201)) {
      setDone(t('generated', { n: a.body.total }));
      setLastBatch(a.body.batch_id);
      loadStock();
    }
  });

  const batches = new Map<string, Voucher[]>();
  for (const v of stock ?? []) batches.set(v.batch_id, [...(batches.get(v.batch_id) ?? []), v]);
  const byForfait = new Map<string, number>();
  for (const v of stock ?? [])
    if (!v.revoked_at) byForfait.set(v.forfait_id, (byForfait.get(v.forfait_id) ?? 0) + 1);
  const revoked = (code: string, at: string) =>
    setStock((all) => all?.map((v) => (v.code === code ? { ...v, revoked_at: at } : v)));

  const printBatch = (items: Voucher[], format: Format) =>
    setPrinting({
      format,
      items: items
        .filter((v) => !v.revoked_at)
        .map((v) => ({
          code: v.code,
          forfait: byId[v.forfait_id] ?? (forfaits.data?.items[0] as Forfait),
        })),
    });

  if (printing && place) {
    return (
      <PrintSheet
        format={printing.format}
        hotspot={place}
        items={printing.items}
        onBack={() => setPrinting(undefined)}
      />
    );
  }
  return (
    <div class="grid">
      <Card title={t('generate')}>
        <form onSubmit={generate} novalidate>
          {isAdmin ? (
            <Select
              label="reseller"
              options={resellerOptions(vlans.data?.items ?? [])}
              first={<option value="">{t('pick_reseller')}</option>}
              {...field('reseller_id', { id: 'reseller' })}
            />
          ) : null}
          <Select
            label="forfait"
            options={forfaitOptions(forfaits.data.items)}
            {...field('forfait_id', { id: 'forfait' })}
            value={chosen}
          />
          <Input
            label="count"
            type="number"
            inputMode="numeric"
            min={1}
            max={1000}
            {...field('n', { id: 'count' })}
          />
          <Select label="code_length" options={LENGTHS} {...field('code_length')} />
          <Input
            label="code_prefix"
            maxLength={4}
            autoCapitalize="characters"
            autoComplete="off"
            pattern="[A-HJKMNP-Za-hjkmnp-z2-9]*"
            {...field('prefix')}
          />
          <p class="hint" data-testid="code-odds" aria-live="polite">
            {guess.random >= MIN_RANDOM && [...prefix].every((c) => ALPHABET.includes(c))
              ? t('code_odds', { random: guess.random, odds: guess.text })
              : t('code_odds_short')}
          </p>
          <button type="submit" disabled={form.busy || !reseller || guess.random < MIN_RANDOM}>
            {t('generate')}
          </button>
          <Message text={errors._} />
          <Message text={done} kind="ok" />
        </form>
      </Card>
      <TopupCard forfaits={forfaits.data.items} />
      <Card title={t('stock')}>
        {hotspots.length > 1 ? (
          <Select
            id="print-hotspot"
            label="hotspot"
            value={place?.nas_id}
            onValue={setHotspot}
            options={hotspotOptions(hotspots)}
          />
        ) : null}
        <Select
          id="print-format"
          label="print_format"
          value={format}
          onValue={(f) => setFormat(f as Format)}
          options={PRINTS.map(([f, label]) => [f, t(label)] as const)}
        />
        {!stock ? (
          <Loading />
        ) : stock.length === 0 ? (
          <p>{t('nothing')}</p>
        ) : (
          <>
            <h3>{t('by_forfait')}</h3>
            <ul class="rows">
              {[...byForfait].map(([id, n]) => (
                <li key={id}>
                  <span>{byId[id]?.name ?? id}</span> <strong>{n}</strong>
                </li>
              ))}
            </ul>
            <h3>{t('batch')}</h3>
            <ul class="rows batches">
              {[...batches].map(([id, items]) => (
                <li key={id} class={id === lastBatch ? 'new' : ''}>
                  <span>
                    {byId[items[0]?.forfait_id ?? '']?.name} · {items.filter((v) => !v.revoked_at).length} ·{' '}
                    {items[0] ? dateTime(items[0].created_at) : ''}
                  </span>
                  <span class="buttons">
                    <button
                      type="button"
                      class="small"
                      disabled={!place}
                      onClick={() => printBatch(items, format)}
                    >
                      {t('print')}
                    </button>
                    <button type="button" class="small secondary" onClick={() => download(id)}>
                      {t('csv')}
                    </button>
                  </span>
                  <details class="codes">
                    <summary>{t('show_codes', { n: items.length })}</summary>
                    <ul class="rows">
                      {items.map((v) => (
                        <CodeRow key={v.code} voucher={v} onRevoked={revoked} />
                      ))}
                    </ul>
                  </details>
                </li>
              ))}
            </ul>
          </>
        )}
      </Card>
    </div>
  );
}

/** The code in groups of four, as the cards print it. */
const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * One unused code of the stock, with "Révoquer" behind a confirm step: the code is refused from
 * then on (redemption, portal, RADIUS) and its live sessions are cut, by the revoke route.
 */
function CodeRow(props: { voucher: Voucher; onRevoked: (code: string, at: string) => void }) {
  const v = props.voucher;
  const [error, setError] = useState<string>();
  const revoke = async () => {
    setError(undefined);
    try {
      const a = await api<{ revoked_at: string }>('POST', `/access/${encodeURIComponent(v.code)}/revoke`, {});
      if (a.status === 200) props.onRevoked(v.code, a.body.revoked_at);
      else setError(errorText(a.body, a.status));
    } catch (err) {
      setError(failure(err));
    }
  };
  return (
    <li data-code={v.code}>
      <code>{grouped(v.code)}</code>
      {v.revoked_at ? (
        <span class="badge failed">{t('revoked')}</span>
      ) : (
        <Confirm
          label="revoke"
          name={v.code}
          question={t('revoke_code_q', { code: grouped(v.code) })}
          onYes={revoke}
        />
      )}
      <Message text={error} />
    </li>
  );
}

/** The batch's codes as a CSV file, in the reader's language (console/csv.ts). */
const download = (batchId: string) =>
  saveCsv(`/vouchers/export?batch_id=${batchId}`, `codes-${batchId.slice(0, 8)}.csv`);
