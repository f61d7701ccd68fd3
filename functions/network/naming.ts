/**
 * VLAN maths and names (DESIGN §4): pure functions, no I/O.
 */

/** Lower case, accents folded, every run of other characters to `_`, trimmed. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export const nasIdOf = (slug: string): string => `access_${slug}`;
export const siteNasIdOf = (slug: string, siteNumber: number): string => `access_${slug}_s${siteNumber}`;

/** The VLAN's /24: `10.(v mod 256).(v div 256).0/24` (the spec's `10.<v>.0.0/24` for v <= 255). */
export function subnetOf(vlanId: number): string {
  return `10.${vlanId % 256}.${Math.floor(vlanId / 256)}.0/24`;
}

/** Host `host` of the VLAN's /24 (1 is the gateway, site n's AP is n + 1). */
export function hostOf(vlanId: number, host: number): string {
  return `10.${vlanId % 256}.${Math.floor(vlanId / 256)}.${host}`;
}

/** An SSID is at most 32 bytes (802.11): longer names are cut at a character boundary. */
export function ssidOf(...parts: string[]): string {
  let out = '';
  for (const ch of ['ACCESS', ...parts].join(' ')) {
    if (Buffer.byteLength(out + ch, 'utf8') > 32) break;
    out += ch;
  }
  return out.trimEnd();
}
