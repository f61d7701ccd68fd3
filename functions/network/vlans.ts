import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { AppError, notFound } from '../core/errors.js';
import { countMetric, log } from '../core/log.js';
import { brandingKeys } from '../store/branding.js';
import { listSites, siteKeys } from '../store/sites.js';
import {
  type Allocation,
  allocateTx,
  getAllocation,
  getReseller,
  readPool,
  releaseTx,
} from '../store/vlans.js';
import { nasIdOf, slugify, ssidOf, subnetOf } from './naming.js';

const duplicate = (message: string) => new AppError('ERR_DUPLICATE_NAS_ID', message);
const exhausted = () => new AppError('ERR_VLAN_POOL_EXHAUSTED', 'No VLAN is left in the pool');

// Parallel allocations race for one counter: each lost race reads again after a jittered,
// growing pause. The bound is generous: 400 allocations at once must all get through.
const MAX_ATTEMPTS = 400;
// The ceiling is wide so that hundreds of waiting callers spread out instead of hammering the counter.
const pause = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.random() * Math.min(2000, 10 * 2 ** Math.min(attempt, 8))));

export interface AllocateInput {
  resellerId: string;
  resellerName?: string;
  siteCount?: number;
}

/**
 * Allocates the reseller's VLAN: the lowest released id if any, else the counter's next one,
 * within the pool. With only a reseller id, the name on record is used (404 without one).
 */
export async function allocateVlan(input: AllocateInput): Promise<Allocation> {
  const { VLAN_FIRST_ID, VLAN_POOL_SIZE } = config();
  const last = VLAN_FIRST_ID + VLAN_POOL_SIZE - 1;
  let name = input.resellerName?.trim();
  let siteCount = input.siteCount;
  if (name === undefined || siteCount === undefined) {
    const profile = await getReseller(input.resellerId);
    if (profile?.vlan_id !== undefined) throw duplicate('This reseller has a VLAN already');
    name ??= profile?.reseller_name;
    siteCount ??= profile?.site_count ?? 1;
    if (!name) throw notFound('Reseller name on record');
  }
  const slug = slugify(name);
  if (!slug) {
    throw new AppError('ERR_VALIDATION', 'reseller_name must contain letters or digits', {
      details: [{ path: 'body.reseller_name', message: 'has no letter or digit' }],
    });
  }
  const nasId = nasIdOf(slug);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const pool = await readPool();
    const freeId = pool.free.find((id) => id >= VLAN_FIRST_ID && id <= last);
    const next = pool.next ?? VLAN_FIRST_ID;
    if (freeId === undefined && next > last) throw exhausted();
    const vlanId = freeId ?? next;
    const allocation: Allocation = {
      vlan_id: vlanId,
      reseller_id: input.resellerId,
      reseller_name: name,
      subnet: subnetOf(vlanId),
      nas_id: nasId,
      ssid: ssidOf(name),
      site_count: siteCount,
      created_at: clock.iso(),
    };
    const result = await allocateTx({
      allocation,
      slug,
      take: freeId !== undefined ? { kind: 'free' } : { kind: 'counter', expectedNext: pool.next },
    });
    if (result === 'ok') {
      log.info('vlan allocated', { vlan_id: vlanId, nas_id: nasId });
      countMetric('VlanAllocated');
      return allocation;
    }
    if (result === 'duplicate') throw duplicate(`${nasId} or this reseller has a VLAN already`);
    await pause(attempt);
  }
  throw new AppError('ERR_UNAVAILABLE', 'Too many allocations at once, try again', {
    headers: { 'Retry-After': '1' },
  });
}

/** Releases a VLAN with its sites, NAS ids, branding and rules; the id is reused first. */
export async function releaseVlan(vlanId: number): Promise<void> {
  const allocation = await getAllocation(vlanId);
  if (!allocation) throw notFound('VLAN');
  const sites = await listSites(allocation.reseller_id);
  const nasIds = [allocation.nas_id, ...sites.map((s) => s.nas_id)];
  const released = await releaseTx({
    allocation,
    siteKeys: sites.map((s) => siteKeys.site(s.reseller_id, s.site_number)),
    nasIds,
    brandingKeys: nasIds.map((id) => brandingKeys.branding(id)),
  });
  if (!released) throw notFound('VLAN');
  log.info('vlan released', { vlan_id: vlanId });
}
