import { randomBytes, randomUUID } from 'node:crypto';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, tokenFor, useLocalServer } from '../support/http.js';

/** A hotspot's logo uploaded as a file: checked by its bytes, stored, served from this origin. */
const server = useLocalServer();
type Err = { error: { code: string; details?: { path: string }[] } };
const tokens = { owner: '', other: '' };
const ownerId = randomUUID();
let nas = '';

const api = (method: string, path: string, token: string | undefined, body?: unknown) =>
  call(server.url(), method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });

function png(width: number, height: number, noise = false): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i += 4) {
    image.data[i] = noise ? Math.floor(Math.random() * 256) : 200;
    image.data[i + 1] = noise ? Math.floor(Math.random() * 256) : 40;
    image.data[i + 2] = 40;
    image.data[i + 3] = 255;
  }
  return PNG.sync.write(image);
}
/** A JPEG of plain colour, as a camera or a canvas makes one. */
function jpegOf(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4, 200);
  return Buffer.from(jpeg.encode({ data, width, height }, 80).data);
}

/** The JPEG with a second start-of-frame segment after its first, stating 4000 x 4000. */
function twoFrames(file: Buffer): Buffer {
  const at = file.indexOf(Buffer.from([0xff, 0xc0]));
  const length = file.readUInt16BE(at + 2);
  const second = Buffer.from(file.subarray(at, at + 2 + length));
  second.writeUInt16BE(4000, 5);
  second.writeUInt16BE(4000, 7);
  return Buffer.concat([file.subarray(0, at + 2 + length), second, file.subarray(at + 2 + length)]);
}

const upload = (file: Buffer, token = tokens.owner) =>
  api('PUT', `/api/v1/branding/${nas}/logo`, token, { image: file.toString('base64') });
const branding = async () =>
  (await api('GET', `/api/v1/branding/${nas}`, undefined)).body as { logo_url: string };

beforeAll(async () => {
  const admin = await tokenFor('admin');
  tokens.owner = await tokenFor('reseller', { resellerId: ownerId });
  tokens.other = await tokenFor('reseller', { resellerId: randomUUID() });
  const res = await api('POST', '/api/v1/network/vlan/allocate', admin, {
    reseller_id: ownerId,
    reseller_name: 'Logo Awa',
    site_count: 1,
  });
  expect(res.status).toBe(201);
  nas = (res.body as { nas_id: string }).nas_id;
});

describe('PUT /api/v1/branding/{nas_id}/logo', () => {
  it('refuses what is not a PNG or JPEG by its bytes (415), whatever it claims, and changes nothing', async () => {
    const before = await branding();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const gif = Buffer.concat([Buffer.from('GIF89a'), randomBytes(200)]);
    const html = Buffer.from('\x89PNG<html><script>alert(1)</script></html>');
    // A WebP header stating 64 x 64 (VP8X): no decoder reads WebP here, so it is refused.
    const webp = Buffer.concat([
      Buffer.from('RIFF'),
      Buffer.from([30, 0, 0, 0]),
      Buffer.from('WEBPVP8X'),
      Buffer.from([10, 0, 0, 0, 0, 0, 0, 0, 63, 0, 0, 63, 0, 0]),
      randomBytes(200),
    ]);
    for (const file of [svg, gif, html, webp]) {
      const r = await upload(file);
      expect(r.status).toBe(415);
      expect((r.body as Err).error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    }
    const notBase64 = await api('PUT', `/api/v1/branding/${nas}/logo`, tokens.owner, {
      image: 'not base64!',
    });
    expect(notBase64.status).toBe(400);
    expect(await branding()).toEqual(before);
  });

  it('refuses a file over 40 KB (413) and sides out of bounds (400), and changes nothing', async () => {
    const before = await branding();
    const big = png(150, 150, true);
    expect(big.length).toBeGreaterThan(40 * 1024);
    const r = await upload(big);
    expect(r.status).toBe(413);
    expect((r.body as Err).error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
    const wide = await upload(png(600, 20));
    expect(wide.status).toBe(400);
    expect((wide.body as Err).error.details?.[0]?.path).toBe('body.image');
    expect((await upload(png(8, 8))).status).toBe(400);
    expect(await branding()).toEqual(before);
  });

  it('refuses a JPEG with two size markers (its first frame says 64 x 64, a second 4000 x 4000) with 415, and changes nothing', async () => {
    const before = await branding();
    const file = twoFrames(jpegOf(64, 64));
    expect(file.indexOf(Buffer.from([0xff, 0xc0]))).not.toBe(file.lastIndexOf(Buffer.from([0xff, 0xc0])));
    const r = await upload(file);
    expect([r.status, (r.body as Err).error?.code]).toEqual([415, 'ERR_UNSUPPORTED_MEDIA_TYPE']);
    expect(await branding()).toEqual(before);
  });

  it('refuses a PNG carrying a script after its image (it does not decode whole), and serves a JPEG as its own encoding of the same size', async () => {
    const withScript = Buffer.concat([png(32, 32), Buffer.from('<script>alert(1)</script>')]);
    const r = await upload(withScript);
    expect([r.status, (r.body as Err).error?.code]).toEqual([415, 'ERR_UNSUPPORTED_MEDIA_TYPE']);

    const photo = await upload(jpegOf(100, 40));
    expect(photo.status).toBe(200);
    const got = await fetch((photo.body as { logo_url: string }).logo_url);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    const decoded = jpeg.decode(Buffer.from(await got.arrayBuffer()));
    expect([decoded.width, decoded.height]).toEqual([100, 40]);
  });

  it('refuses another reseller (403) and an unknown hotspot (404)', async () => {
    expect((await upload(png(64, 64), tokens.other)).status).toBe(403);
    const r = await api('PUT', '/api/v1/branding/access_nobody_here/logo', tokens.owner, {
      image: png(64, 64).toString('base64'),
    });
    expect(r.status).toBe(404);
  });

  it('stores a good file and serves it from the platform origin, immutable, until another logo replaces it', async () => {
    const file = png(128, 64);
    const r = await upload(file);
    expect(r.status).toBe(200);
    const url = (r.body as { logo_url: string }).logo_url;
    expect(url.startsWith(`${server.url()}/api/v1/branding/${nas}/logo/`)).toBe(true);
    expect((await branding()).logo_url).toBe(url);

    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('cache-control')).toContain('immutable');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    // The platform's own encoding of the same pixels (the file sent is never served as sent).
    const served = PNG.sync.read(Buffer.from(await got.arrayBuffer()));
    expect([served.width, served.height]).toEqual([128, 64]);
    expect(Buffer.from(served.data).equals(PNG.sync.read(file).data)).toBe(true);

    // The portal loads it from its own origin: no other image host in its CSP.
    const portal = await fetch(`${server.url()}/portal/${nas}`);
    const html = await portal.text();
    expect(html).toContain(`src="/api/v1/branding/${nas}/logo/`);
    expect(portal.headers.get('content-security-policy')).toContain("img-src 'self' data:;");

    // An https logo set since: the uploaded one is no longer served.
    const put = await api('PUT', `/api/v1/branding/${nas}`, tokens.owner, {
      logo_url: 'https://cdn.example.com/awa.png',
    });
    expect(put.status).toBe(200);
    expect((await fetch(url)).status).toBe(404);
    const wrong = await fetch(`${server.url()}/api/v1/branding/${nas}/logo/AAAAAAAAAAAAAAAA`);
    expect(wrong.status).toBe(404);
  });
});
