// An uploaded logo checked (type, size, dimensions) and where it is kept.

import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';

/**
 * What an uploaded logo may be. The console resizes the chosen file in the browser (a canvas, at
 * most LOGO_MAX_SIDE pixels a side) and the server reads it: the type from the file's first
 * bytes (PNG or JPEG: never SVG, which can carry script), the size, the dimensions its header
 * states, then the whole image decoded and encoded again (functions/network/logo-image.mts,
 * pngjs and jpeg-js): a file that does not decode whole, or whose pixels are not the size its
 * header states (a JPEG with two size markers), is refused, and what is served is the platform's
 * own encoding from its own origin. WebP is refused: no well-kept decoder runs in a Lambda
 * without native code or a WebAssembly build, and the console sends PNG or JPEG.
 */
export const LOGO_MAX_BYTES = 40 * 1024;
export const LOGO_MAX_SIDE = 512;
export const LOGO_MIN_SIDE = 16;
/** A logo encoded again may come out larger than the file sent: served up to this. */
const SERVED_MAX_BYTES = 2 * LOGO_MAX_BYTES;
export type LogoType = 'image/png' | 'image/jpeg';

export interface CheckedLogo {
  type: LogoType;
  width: number;
  height: number;
  bytes: Uint8Array;
  /** The first 16 characters of the content's SHA-256 (base64url): its URL, so served immutable. */
  hash: string;
}

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
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

const unsupported = (why: string) => new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', why);

/**
 * The uploaded file (base64) checked and encoded again: 413 over LOGO_MAX_BYTES, 415 when its
 * bytes are not a PNG or JPEG (whatever its name or stated type) or do not decode whole, 400
 * when its sides are out of bounds.
 */
export async function checkLogo(base64: string): Promise<CheckedLogo> {
  const sent = new Uint8Array(Buffer.from(base64, 'base64'));
  if (sent.length > LOGO_MAX_BYTES)
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', `The logo is larger than ${LOGO_MAX_BYTES} bytes`);
  const stated = png(sent) ?? jpeg(sent);
  if (!stated) throw unsupported('The logo must be a PNG or JPEG image');
  const side = (n: number) => n >= LOGO_MIN_SIDE && n <= LOGO_MAX_SIDE;
  const outOfBounds = () =>
    new AppError('ERR_VALIDATION', 'Logo dimensions out of bounds', {
      details: [
        { path: 'body.image', message: `must be ${LOGO_MIN_SIDE} to ${LOGO_MAX_SIDE} pixels a side` },
      ],
    });
  // Bounds first, from the header: nothing larger is ever decoded.
  if (!side(stated.width) || !side(stated.height)) throw outOfBounds();
  const { reencode } = await import('./logo-image.mjs');
  let image: Awaited<ReturnType<typeof reencode>>;
  try {
    image = reencode(stated.type, sent);
  } catch {
    throw unsupported('The logo could not be read as a whole PNG or JPEG image');
  }
  if (image.width !== stated.width || image.height !== stated.height)
    throw unsupported('The logo does not hold the image its header states');
  if (image.bytes.length > SERVED_MAX_BYTES)
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', `The logo is larger than ${LOGO_MAX_BYTES} bytes`);
  const hash = createHash('sha256').update(image.bytes).digest('base64url').slice(0, 16);
  return { type: stated.type, width: image.width, height: image.height, bytes: image.bytes, hash };
}

/** The path an uploaded logo is served at (immutable: a new file, a new path). */
export const logoPath = (nasId: string, hash: string): string =>
  `/api/v1/branding/${encodeURIComponent(nasId)}/logo/${hash}`;
