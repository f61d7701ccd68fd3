// Text as an SMS carries it (GSM 03.38), and how many segments it costs.

/**
 * GSM 03.38 (GSM-7): the default SMS alphabet. A text of these characters fits 160 per segment;
 * one character outside it makes the whole text UCS-2, 70 per segment, and at 100-300 FCFA a
 * pass every extra segment is money. The extension table (`^{}\[~]|€`, counted as two) is left
 * out: our texts never need it.
 */
const GSM7 =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const IN_GSM7 = new Set(GSM7);

/**
 * `text` in GSM-7 (the same text when it is GSM-7 already): accents removed where the letter is
 * not in the alphabet as it is (ï -> i, ô -> o, ç -> c; é, è, à stay), typographic quotes and
 * dashes made plain, anything else `?`.
 */
export function toGsm7(text: string): string {
  return [...text]
    .map((c) => {
      if (IN_GSM7.has(c)) return c;
      const plain = c
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .replace(/[‘’‚′]/g, "'")
        .replace(/[“”„″«»]/g, '"')
        .replace(/[‐‑‒–—]/g, '-');
      return [...plain].every((p) => IN_GSM7.has(p)) ? plain : '?';
    })
    .join('');
}

/** SMS parts a GSM-7 text takes: 160 characters in one, 153 a part when split. */
export function gsm7Segments(text: string): number {
  return text.length <= 160 ? 1 : Math.ceil(text.length / 153);
}
