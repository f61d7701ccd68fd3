// An uploaded logo checked (type, size, dimensions) and where it is kept.

import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';

/**
 * What an uploaded logo may be. No image library is in the project (none decodes and resizes
 * without native code: sharp needs libvips in every Lambda), so the console resizes the chosen
 * file in the browser (a canvas, at most LOGO_MAX_SIDE pixels a side) and the server only
 * verifies: the type from the file's first bytes (PNG, JPEG or WebP: never SVG, which can carry
 * script), the size, and the dimensions its header states. The file is then served from the
 * platform's own origin, never a third party's.
 */
export const LOGO_MAX_BYTES = 40 * 1024;
export const LOGO_MAX_SIDE = 512;
export const LOGO_MIN_SIDE = 16;
export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface CheckedLogo {
  type: LogoType;
  width: number;
  height: number;
  bytes: Uint8Array;
  /** The first 16 characters of the content's SHA-256 (base64url): its URL, so served immutable. */
  hash: string;
}

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number) => u16be(b, i) * 65536 + u16be(b, i + 2);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

/** PNG: the signature, then the IHDR chunk's width and height (big-endian). */
function png(b: Uint8Array) {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!sig.every((v, i) => b[i] === v) || ascii(b, 12, 4) !== 'IHDR') return undefined;
  return { type: 'image/png' as const, width: u32be(b, 16), height: u32be(b, 20) };
}

/** JPEG: SOI, then the segments up to a start-of-frame marker, which states the size. */
function jpeg(b: Uint8Array) {
  if (b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] ?? 0;
    if (marker === 0xff) {
      i++;
      continue;
    }
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { type: 'image/jpeg' as const, width: u16be(b, i + 7), height: u16be(b, i + 5) };
    i += 2 + u16be(b, i + 2);
  }
  return undefined;
}

/** WebP: RIFF/WEBP, then a lossy (VP8), lossless (VP8L) or extended (VP8X) header. */
function webp(b: Uint8Array) {
  if (ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WEBP') return undefined;
  const chunk = ascii(b, 12, 4);
  const type = 'image/webp' as const;
  if (chunk === 'VP8 ') return { type, width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = u16le(b, 21) + u16le(b, 23) * 65536;
    return { type, width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { type, width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  return undefined;
}

/**
 * The uploaded file (base64) checked: 413 over LOGO_MAX_BYTES, 415 when its bytes are not a PNG,
 * JPEG or WebP (whatever its name or stated type), 400 when its sides are out of bounds.
 */
export function checkLogo(base64: string): CheckedLogo {
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  if (bytes.length > LOGO_MAX_BYTES)
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', `The logo is larger than ${LOGO_MAX_BYTES} bytes`);
  const seen = png(bytes) ?? jpeg(bytes) ?? webp(bytes);
  if (!seen) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'The logo must be a PNG, JPEG or WebP image');
  const side = (n: number) => n >= LOGO_MIN_SIDE && n <= LOGO_MAX_SIDE;
  if (!side(seen.width) || !side(seen.height)) {
    throw new AppError('ERR_VALIDATION', 'Logo dimensions out of bounds', {
      details: [
        { path: 'body.image', message: `must be ${LOGO_MIN_SIDE} to ${LOGO_MAX_SIDE} pixels a side` },
      ],
    });
  }
  const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 16);
  return { ...seen, bytes, hash };
}

/** The path an uploaded logo is served at (immutable: a new file, a new path). */
export const logoPath = (nasId: string, hash: string): string =>
  `/api/v1/branding/${encodeURIComponent(nasId)}/logo/${hash}`;
