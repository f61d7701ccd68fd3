// A UDP router's secret sealed (AES-256-GCM) at rest, and opened for the front.

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A UDP router's secret is stored sealed (AES-256-GCM, a key derived from ROUTER_SEAL_KEY, a
 * secret of its own: the functions that open boxes cannot issue certificates, and those that
 * issue certificates with ROUTER_CA_KEY cannot open boxes unless they seal too), not in clear: a
 * copy of the table (a backup, an export) does not give the secrets away. It is opened only to
 * answer FreeRADIUS's client lookup and the Disconnect claim. The router id is the additional
 * data: a sealed secret moved to another router's item does not open.
 */
const keyOf = (seed: string) =>
  Buffer.from(hkdfSync('sha256', seed, 'hotspot-router-secret', 'aes-256-gcm', 32));

export function seal(seed: string, routerId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(seed), iv);
  cipher.setAAD(Buffer.from(routerId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

/** The secret, or undefined when the box does not open (another seed, another router, tampered). */
export function open(seed: string, routerId: string, box: string): string | undefined {
  const [iv, body, tag] = box.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !body || !tag || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(seed), iv);
    decipher.setAAD(Buffer.from(routerId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A new UDP secret: 32 letters and digits (about 190 bits), safe in RouterOS, FreeRADIUS and a
 * shell alike (a secret starting with `-` would read as an option to radclient).
 */
export function newSecret(): string {
  let out = '';
  while (out.length < 32)
    for (const b of randomBytes(48)) if (b < 248 && out.length < 32) out += ALNUM[b % 62];
  return out;
}
