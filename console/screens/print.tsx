import { useEffect } from 'preact/hooks';
import type { CardOffer } from '../answers.js';
import { t } from '../i18n.js';
import { Qr } from '../qr.js';

export type Format = 'a4' | 't58' | 't80';

export interface Printable {
  code: string;
  forfait: CardOffer;
}

/** The portal address a card's QR code opens: the voucher form, filled with the code. */
export const voucherUrl = (nasId: string, code: string): string =>
  `${location.origin}/portal/${encodeURIComponent(nasId)}?voucher=${code}`;

// The card speaks French whatever the console's language: the buyer reads it.
const price = (n: number) =>
  `${new Intl.NumberFormat('fr-FR').format(n).replace(/\u202f|\u00a0/g, ' ')} FCFA`;
const duration = (h: number) => (h >= 48 && h % 24 === 0 ? `${h / 24} jours` : `${h} h`);
const volume = (mb: number) =>
  !mb ? 'illimitées' : mb >= 1024 ? `${Math.round(mb / 102.4) / 10} Go` : `${mb} Mo`;

/** `ABCD EFGH JK`: a code read aloud or typed is easier in groups. */
const grouped = (code: string) => code.replace(/(.{4})(.{4})(.*)/, '$1 $2 $3');

/**
 * The cards or tickets of a batch, always in French (what the buyer reads): on screen as a
 * preview, and alone on paper (console.css `@media print`, a named page per format).
 */
export function PrintSheet(props: {
  format: Format;
  hotspot: { nas_id: string; name: string };
  items: Printable[];
  onBack: () => void;
}) {
  useEffect(() => {
    document.body.classList.add('printing');
    return () => document.body.classList.remove('printing');
  }, []);
  return (
    <div>
      <div class="no-print actions">
        <button type="button" onClick={() => print()}>
          {t('print')}
        </button>
        <button type="button" class="secondary" onClick={props.onBack}>
          {t('back')}
        </button>
      </div>
      <div class={`sheet ${props.format}`} lang="fr" data-testid="print-sheet">
        {props.items.map((v) => (
          <article class="voucher" key={v.code} data-code={v.code}>
            <header>{props.hotspot.name}</header>
            <p class="v-code">{grouped(v.code)}</p>
            <Qr
              text={voucherUrl(props.hotspot.nas_id, v.code)}
              size={props.format === 't58' ? '30mm' : '26mm'}
              label={`QR ${v.code}`}
            />
            <ul>
              <li>
                {v.forfait.name} · <strong>{price(v.forfait.price_fcfa)}</strong>
              </li>
              <li>
                Durée : {duration(v.forfait.duration_hours)} · Données : {volume(v.forfait.data_limit_mb)}
              </li>
              <li class="hint">Scannez ou saisissez le code sur le portail WiFi.</li>
            </ul>
          </article>
        ))}
      </div>
    </div>
  );
}
