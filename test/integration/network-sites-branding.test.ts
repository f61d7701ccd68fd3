import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { config } from '../../functions/core/config.js';
import { AppError } from '../../functions/core/errors.js';
import type { Principal } from '../../functions/core/principal.js';
import { brandingOf, updateBranding } from '../../functions/network/branding.js';
import { dnsStatusView, reportDns } from '../../functions/network/dns.js';
import { addSite, sitesOf } from '../../functions/network/sites.js';
import { allocateVlan, releaseVlan } from '../../functions/network/vlans.js';
import { readBranding, saveBranding } from '../../functions/store/branding.js';
import { getDnsStatus, setUnboundHealthy } from '../../functions/store/dns-status.js';
import { getNas, listNasIdsOfReseller } from '../../functions/store/nas.js';
import { createTestTable } from '../support/db.js';

const admin: Principal = { sub: randomUUID(), role: 'admin', ref: 'SUB-1', exp: 4102444800 };
const reseller = (resellerId: string): Principal => ({
  sub: randomUUID(),
  role: 'reseller',
  ref: 'SUB-2',
  resellerId,
  exp: 4102444800,
});

const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

const site = (resellerId: string, n: number, city = 'Bouaké') => ({
  reseller_id: resellerId,
  site_number: n,
  city,
  latitude: 7.69,
  longitude: -5.03,
});

describe('sites', () => {
  it('creates each site number once, inside the VLAN, and claims its NAS id', async () => {
    await createTestTable();
    const id = randomUUID();
    const vlan = await allocateVlan({ resellerId: id, resellerName: 'Chez Awa', siteCount: 3 });
    const s = await addSite(reseller(id), site(id, 3, 'Korhogo'));
    expect(s).toMatchObject({
      reseller_id: id,
      nas_id: 'access_chez_awa_s3',
      ssid: 'ACCESS Chez Awa Korhogo',
      ap_ip: `10.${vlan.vlan_id}.0.4`,
    });
    expect(await getNas('access_chez_awa_s3')).toMatchObject({
      reseller_id: id,
      vlan_id: vlan.vlan_id,
      kind: 'site',
    });
    expect(await outcome(addSite(admin, site(id, 3)))).toBe('ERR_CONFLICT');
    expect(await outcome(addSite(admin, site(id, 4)))).toBe('ERR_VALIDATION');
    expect((await listNasIdsOfReseller(id)).sort()).toEqual(['access_chez_awa', 'access_chez_awa_s3']);
  });

  it('lets exactly one of two parallel requests for the same site win', async () => {
    await createTestTable();
    const id = randomUUID();
    await allocateVlan({ resellerId: id, resellerName: 'Racy', siteCount: 2 });
    const both = await Promise.all([
      outcome(addSite(admin, site(id, 1))),
      outcome(addSite(admin, site(id, 1))),
    ]);
    expect(both.filter((r) => typeof r === 'object')).toHaveLength(1);
    expect(both).toContain('ERR_CONFLICT');
    expect(await sitesOf(admin, id)).toHaveLength(1);
  });

  it("answers ERR_DUPLICATE_NAS_ID when a site's NAS id is another reseller's", async () => {
    await createTestTable();
    const id = randomUUID();
    await allocateVlan({ resellerId: id, resellerName: 'Awa', siteCount: 2 });
    await allocateVlan({ resellerId: randomUUID(), resellerName: 'Awa S1', siteCount: 1 });
    expect(await outcome(addSite(admin, site(id, 1)))).toBe('ERR_DUPLICATE_NAS_ID');
    expect(await sitesOf(admin, id)).toEqual([]);
  });

  it('keeps resellers to their own sites', async () => {
    await createTestTable();
    const id = randomUUID();
    await allocateVlan({ resellerId: id, resellerName: 'Mine', siteCount: 1 });
    const stranger = reseller(randomUUID());
    expect(await outcome(addSite(stranger, site(id, 1)))).toBe('ERR_FORBIDDEN');
    expect(await outcome(sitesOf(stranger, id))).toBe('ERR_FORBIDDEN');
    expect(await outcome(addSite(reseller(id), site(id, 1)))).toMatchObject({ site_number: 1 });
    expect(await sitesOf(reseller(id), id)).toHaveLength(1);
  });

  it('answers 404 for a reseller with no VLAN', async () => {
    await createTestTable();
    const id = randomUUID();
    expect(await outcome(addSite(admin, site(id, 1)))).toBe('ERR_NOT_FOUND');
    expect(await outcome(sitesOf(admin, id))).toBe('ERR_NOT_FOUND');
  });
});

describe('branding', () => {
  it('answers defaults for a VLAN and a site NAS id, 404 for any other', async () => {
    await createTestTable();
    const id = randomUUID();
    await allocateVlan({ resellerId: id, resellerName: 'Salon Fatou', siteCount: 2 });
    await addSite(admin, site(id, 2));
    for (const nasId of ['access_salon_fatou', 'access_salon_fatou_s2']) {
      expect(await brandingOf(nasId)).toEqual({
        nas_id: nasId,
        reseller_name: 'Salon Fatou',
        // The portal's own default logo, on the platform's origin: no third-party host.
        logo_url: `${config().PUBLIC_BASE_URL.replace(/\/$/, '')}/portal/assets/logo.svg`,
        primary_color: '#0f6cbd',
        secondary_color: '#ffffff',
        banner_rotation_seconds: 10,
        custom_css: '',
      });
    }
    for (const unknown of ['access_salon_fatou_s1', 'ACCESS_SALON', 'salon_fatou', 'x'.repeat(180)]) {
      expect(await outcome(brandingOf(unknown))).toBe('ERR_NOT_FOUND');
    }
  });

  it('merges a partial update and answers the whole record; another reseller gets 403', async () => {
    await createTestTable();
    const id = randomUUID();
    await allocateVlan({ resellerId: id, resellerName: 'Salon Fatou', siteCount: 1 });
    await updateBranding(reseller(id), 'access_salon_fatou', { primary_color: '#112233' });
    const after = await updateBranding(admin, 'access_salon_fatou', { banner_rotation_seconds: 45 });
    expect(after).toMatchObject({
      primary_color: '#112233',
      banner_rotation_seconds: 45,
      secondary_color: '#ffffff',
    });
    expect(
      await outcome(
        updateBranding(reseller(randomUUID()), 'access_salon_fatou', { primary_color: '#000000' }),
      ),
    ).toBe('ERR_FORBIDDEN');
    expect((await brandingOf('access_salon_fatou')).primary_color).toBe('#112233');
  });

  it('saves nothing for a NAS id that no longer belongs to the reseller', async () => {
    await createTestTable();
    const id = randomUUID();
    const vlan = await allocateVlan({ resellerId: id, resellerName: 'Gone Soon', siteCount: 1 });
    await releaseVlan(vlan.vlan_id);
    expect(await saveBranding('access_gone_soon', id, { primary_color: '#abcdef' })).toBe(false);
    expect(await readBranding('access_gone_soon')).toEqual({});
    // A new owner of the same name starts from the defaults, not the old owner's branding.
    const next = randomUUID();
    await allocateVlan({ resellerId: next, resellerName: 'Gone Soon', siteCount: 1 });
    expect((await brandingOf('access_gone_soon')).primary_color).toBe('#0f6cbd');
  });

  it('forgets the branding of a released VLAN and of its sites', async () => {
    await createTestTable();
    const id = randomUUID();
    const vlan = await allocateVlan({ resellerId: id, resellerName: 'Brand Gone', siteCount: 1 });
    await addSite(admin, site(id, 1));
    await updateBranding(admin, 'access_brand_gone', { primary_color: '#abcdef' });
    await updateBranding(admin, 'access_brand_gone_s1', { primary_color: '#abcdef' });
    await releaseVlan(vlan.vlan_id);
    expect(await readBranding('access_brand_gone')).toEqual({});
    expect(await readBranding('access_brand_gone_s1')).toEqual({});
  });
});

describe('DNS status', () => {
  it('answers defaults before any report', async () => {
    await createTestTable();
    expect(dnsStatusView(await getDnsStatus())).toEqual({
      unbound_healthy: false,
      blocklist_count: 0,
      sinkhole_ip: '0.0.0.0',
      // Never reported: the epoch.
      last_update: '1970-01-01T00:00:00.000Z',
    });
  });

  it("keeps the canary's verdict and the DNS host's report apart", async () => {
    await createTestTable();
    await setUnboundHealthy(true, '2026-11-22T10:00:00.000Z');
    await reportDns({
      blocklist_count: 120_000,
      sinkhole_ip: '10.0.0.53',
      last_update: '2026-11-22T09:00:00+01:00',
    });
    await setUnboundHealthy(false, '2026-11-22T10:05:00.000Z');
    expect(dnsStatusView(await getDnsStatus())).toEqual({
      unbound_healthy: false,
      checked_at: '2026-11-22T10:05:00.000Z',
      blocklist_count: 120_000,
      sinkhole_ip: '10.0.0.53',
      last_update: '2026-11-22T08:00:00.000Z',
    });
  });

  it('ignores an older report and refuses one dated in the future', async () => {
    await createTestTable();
    await reportDns({ blocklist_count: 2, sinkhole_ip: '10.0.0.53', last_update: '2026-01-02T00:00:00Z' });
    const older = await reportDns({
      blocklist_count: 1,
      sinkhole_ip: '10.0.0.9',
      last_update: '2026-01-01T00:00:00Z',
    });
    expect(older).toMatchObject({ blocklist_count: 2, sinkhole_ip: '10.0.0.53' });
    const future = new Date(clock.now() + 3_600_000).toISOString();
    expect(
      await outcome(reportDns({ blocklist_count: 3, sinkhole_ip: '10.0.0.1', last_update: future })),
    ).toBe('ERR_VALIDATION');
  });
});
