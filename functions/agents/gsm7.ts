/**
 * GSM 03.38's basic character set: a text made only of these is sent 7 bits a character, 160
 * to a single SMS (153 per part when split). One character outside it (a curly apostrophe, an
 * emoji) turns the whole message into UCS-2: 70 a part, so two or three times the price.
 */
const GSM7 = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);

/** The text with what GSM-7 lacks replaced: accents dropped (ê -> e), typographic quotes straightened, the rest `?`. */
export function gsm7Text(text: string): string {
  return [...text.replace(/[’‘]/g, "'").replace(/[“”«»]/g, '"')]
    .map((ch) => {
      if (GSM7.has(ch)) return ch;
      const bare = ch.normalize('NFD').replace(/\p{M}/gu, '');
      return GSM7.has(bare) ? bare : '?';
    })
    .join('');
}

/** SMS parts a GSM-7 text takes (an extension character such as `€` counts twice; none here). */
export function gsm7Segments(text: string): number {
  return text.length <= 160 ? 1 : Math.ceil(text.length / 153);
}
