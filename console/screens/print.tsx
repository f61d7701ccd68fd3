import { useEffect } from 'preact/hooks';
import type { CardOffer } from '../answers.js';
import { t } from '../i18n.js';
import { Qr } from '../qr.js';

/**
 * How a batch prints: A4 sheets of 9 (3 x 3), 21 (3 x 7) or 40 (4 x 10) cards, or one ticket a
 * page on a 58 or 80 mm thermal printer. Each is a named page of console.css (`@page a4`...).
 */
export type Format = 'a4' | 'a4-21' | 'a4-40' | 't58' | 't80';

/** The cards an A4 sheet holds in each layout (console.css sizes them to fit exactly). */
export const PER_SHEET: Partial<Record<Format, number>> = { a4: 9, 'a4-21': 21, 'a4-40': 40 };

export interface Printable {
  code: string;
  forfait: CardOffer;
}

/** The portal address a card's QR code opens: the voucher form, filled with the code. */
export const voucherUrl = (nasId: string, code: string): string =>
  `${location.origin}/portal/${encodeURIComponent(nasId)}?voucher=${code}`;

// The card speaks French whatever the console's language: the buyer reads it.
// Every space a no-break one: a price, a duration or a volume never wraps mid-figure on a card.
const price = (n: number) =>
  `${new Intl.NumberFormat('fr-FR').format(n).replace(/\u202f/g, '\u00a0')}\u00a0FCFA`;
const duration = (h: number) => (h >= 48 && h % 24 === 0 ? `${h / 24}\u00a0jours` : `${h}\u00a0h`);
const volume = (mb: number) =>
  !mb
    ? 'illimitées'
    : mb >= 1024
      ? `${String(Math.round(mb / 102.4) / 10).replace('.', ',')}\u00a0Go`
      : `${mb}\u00a0Mo`;

/** `ABCD EFGH JK`: a code read aloud or typed is easier in groups of four. */
export const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The cards or tickets of a batch, always in French (what the buyer reads): on screen as a
 * preview, and alone on paper (console.css `@media print`, a named page per format). Each card
 * names the Wi-Fi network to join (the hotspot's SSID) and says how to connect. The print
 * button stays at the top of the screen (sticky), and the view opens scrolled to it.
 */
export function PrintSheet(props: {
  format: Format;
  hotspot: { nas_id: string; name: string; ssid?: string };
  items: Printable[];
  onBack: () => void;
}) {
  useEffect(() => {
    document.body.classList.add('printing');
    scrollTo(0, 0);
    return () => document.body.classList.remove('printing');
  }, []);
  const small = props.format === 'a4-21' || props.format === 'a4-40';
  const qrSize =
    props.format === 'a4-40'
      ? '19mm'
      : props.format === 'a4-21'
        ? '25mm'
        : props.format === 't58'
          ? '30mm'
          : '26mm';
  const ssid = props.hotspot.ssid;
  // How to connect, shorter where 40 cards share a page.
  const hint =
    props.format === 'a4-40'
      ? ssid
        ? 'Rejoignez ce Wi-Fi, puis scannez ou tapez le code.'
        : 'Scannez ou tapez le code sur la page Wi-Fi.'
      : ssid
        ? 'Rejoignez ce Wi-Fi, puis scannez ou saisissez le code sur la page qui s’ouvre.'
        : 'Scannez ou saisissez le code sur la page qui s’ouvre.';
  // A4: one .page per sheet of paper, so that each holds exactly its layout's count.
  const per = PER_SHEET[props.format] ?? props.items.length;
  const pages = Array.from({ length: Math.ceil(props.items.length / per) }, (_, i) =>
    props.items.slice(i * per, (i + 1) * per),
  );
  return (
    <div>
      <div class="no-print actions print-bar">
        <button type="button" onClick={() => print()}>
          {t('print')}
        </button>
        <button type="button" class="secondary" onClick={props.onBack}>
          {t('back')}
        </button>
        <span class="hint">{t('print_count', { n: props.items.length })}</span>
      </div>
      <div class={`sheet ${props.format}`} lang="fr" data-testid="print-sheet">
        {pages.map((page, n) => (
          <div class="page" key={n}>
            {page.map((v) => (
              <article class={`voucher${small ? ' side' : ''}`} key={v.code} data-code={v.code}>
                <Qr text={voucherUrl(props.hotspot.nas_id, v.code)} size={qrSize} label={`QR ${v.code}`} />
                <div class="v-text">
                  <header>{props.hotspot.name}</header>
                  <p class="v-code">{grouped(v.code)}</p>
                  <ul>
                    <li>
                      {v.forfait.name} · <strong>{price(v.forfait.price_fcfa)}</strong>
                    </li>
                    <li>
                      Durée {duration(v.forfait.duration_hours)} · Données {volume(v.forfait.data_limit_mb)}
                    </li>
                    {ssid ? (
                      <li class="v-ssid">
                        Wi-Fi : <strong>{ssid}</strong>
                      </li>
                    ) : null}
                    <li class="hint">{hint}</li>
                  </ul>
                </div>
              </article>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
