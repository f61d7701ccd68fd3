// VLAN maths and names: slugs, NAS ids, subnets, hosts and SSIDs.

/**
 * VLAN maths and names: pure functions, no I/O. Subnet of VLAN v: 10.(v mod 256).(v div 256).0/24
 * (the API's `10.<v>.0.0/24` for v <= 255, still a distinct /24 above); nas_id `access_<slug>`.
 */

export const MAX_SLUG_LENGTH = 64;

/**
 * Lower case, accents folded (NFKD, combining marks dropped: `É` -> `e`, and compatibility
 * forms too: `ﬁ` -> `fi`), every run of other characters to `_`, trimmed of `_`, at most 64
 * characters. Empty when the name has no letter or digit of the Latin alphabet.
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+/, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/_+$/, '');
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

/**
 * `ACCESS <name>` (a VLAN) or `ACCESS <name> <city>` (a site), exactly the spec's shape. It is
 * not cut at the 802.11 limit of 32 bytes: the contract is the spec's, and the access point's
 * provisioning shortens what it broadcasts if it has to.
 */
export const ssidOf = (...parts: string[]): string => ['ACCESS', ...parts].join(' ');

/** True for a NAS id this service can have issued (anything else is unknown, not malformed). */
export const isNasIdShape = (value: string): boolean => /^access_[a-z0-9_]{1,120}$/.test(value);
