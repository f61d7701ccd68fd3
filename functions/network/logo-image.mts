// A reseller's uploaded logo decoded whole and encoded again, so that only the platform's own encoding is served (a lazy chunk).

/**
 * Decodes an uploaded logo to its pixels and encodes those again, with pngjs and jpeg-js (pure
 * JavaScript, no native code for the Lambda to carry): what is served is the platform's own
 * encoding of an image it could read whole, never the uploaded bytes, so nothing else the file
 * held (a second size marker, a trailing script, metadata) goes out. A lazy chunk
 * (lib/lazy-chunks.ts): only a logo upload loads it.
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export interface Decoded {
  width: number;
  height: number;
  /** The encoding served: PNG (transparency kept) for a PNG, JPEG for a JPEG. */
  bytes: Uint8Array;
}

/** Larger than any logo the bounds allow (512 x 512): a file claiming more is refused before it is decoded. */
const MAX_MEGAPIXELS = 1;
const JPEG_QUALITY = 85;

/** The image decoded and encoded again; throws when it cannot be decoded whole. */
export function reencode(type: 'image/png' | 'image/jpeg', bytes: Uint8Array): Decoded {
  const input = Buffer.from(bytes);
  if (type === 'image/png') {
    const image = PNG.sync.read(input);
    return { width: image.width, height: image.height, bytes: PNG.sync.write(image) };
  }
  const image = jpeg.decode(input, {
    useTArray: true,
    formatAsRGBA: true,
    maxResolutionInMP: MAX_MEGAPIXELS,
    maxMemoryUsageInMB: 16,
  });
  const out = jpeg.encode({ data: image.data, width: image.width, height: image.height }, JPEG_QUALITY);
  return { width: image.width, height: image.height, bytes: new Uint8Array(out.data) };
}
