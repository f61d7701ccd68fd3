import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { AppError, notFound } from '../core/errors.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { closeSiteIncidents } from '../store/alerts.js';
import { getReseller, markReleasing } from '../store/resellers.js';
import { deleteSites, listSites } from '../store/sites.js';
import { type Allocation, allocateTx, getAllocation, readPool, releaseTx } from '../store/vlans.js';
import { defaultRules } from './default-rules.js';
import { nasIdOf, slugify, ssidOf, subnetOf } from './naming.js';
import { networkSettings } from './settings.js';

const duplicate = (message: string) => new AppError('ERR_DUPLICATE_NAS_ID', message);
const exhausted = () => new AppError('ERR_VLAN_POOL_EXHAUSTED', 'No VLAN is left in the pool');

/**
 * Attempts at the allocation transaction before giving up with a 503. Each lost race (another
 * allocation moved the counter between our read and our write) costs one; with hundreds of
 * containers allocating at once the last one may lose a few hundred times.
 */
export const MAX_ATTEMPTS = 1000;

/** Full jitter over a window that doubles with each lost race, up to two seconds. */
const pause = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.random() * Math.min(2000, 10 * 2 ** Math.min(attempt, 8))));

// Allocations running in this process, and those waiting for a lane (VLAN_ALLOCATION_LANES).
let running = 0;
const waiting: (() => void)[] = [];

async function inLane<T>(fn: () => Promise<T>): Promise<T> {
  if (running < networkSettings().VLAN_ALLOCATION_LANES) running += 1;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await fn();
  } finally {
    // Hand the lane to the next in line, or give it back.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

export interface AllocateInput {
  resellerId: string;
  resellerName?: string;
  siteCount?: number;
}

/**
 * Allocates the reseller's VLAN: the lowest released id if any, else the counter's next one,
 * within the pool. Without a name, the name on record is used (404 without one); without a
 * site count, the one on record, else 1.
 */
export async function allocateVlan(input: AllocateInput): Promise<Allocation> {
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
    // A name on record from before the schema's check; a given one is checked by the schema.
    throw new AppError('ERR_VALIDATION', 'reseller_name cannot make a NAS id', {
      details: [
        {
          path: 'body.reseller_name',
          message: 'must contain at least one letter a-z (accents allowed: é is e) or digit 0-9',
        },
      ],
    });
  }
  const chosen = { name, slug, siteCount };
  return inLane(() => takeId(input.resellerId, chosen));
}

async function takeId(
  resellerId: string,
  { name, slug, siteCount }: { name: string; slug: string; siteCount: number },
): Promise<Allocation> {
  const { VLAN_FIRST_ID, VLAN_POOL_SIZE } = config();
  const last = VLAN_FIRST_ID + VLAN_POOL_SIZE - 1;
  const nasId = nasIdOf(slug);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const pool = await readPool();
    const freeId = pool.free.find((id) => id >= VLAN_FIRST_ID && id <= last);
    const next = pool.next ?? VLAN_FIRST_ID;
    if (freeId === undefined && next > last) throw exhausted();
    const vlanId = freeId ?? next;
    const allocation: Allocation = {
      vlan_id: vlanId,
      reseller_id: resellerId,
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
      take:
        freeId !== undefined
          ? { kind: 'free' }
          : { kind: 'counter', expectedNext: pool.next, freeWasEmpty: pool.free.length === 0 },
      rules: defaultRules(vlanId),
    });
    if (result === 'ok') {
      log.info('vlan allocated', { vlan_id: vlanId, nas_id: nasId, attempts: attempt + 1 });
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

/**
 * Releases a VLAN: its sites (with their NAS ids and branding) first, then in one transaction
 * the allocation, its NAS id, branding and rules, the reseller's hold, and the id back into the
 * free set (reused before the counter advances). The reseller is marked first, so no site can
 * be added meanwhile; a release cut short leaves the VLAN allocated and is finished by the next.
 */
export async function releaseVlan(vlanId: number): Promise<void> {
  const allocation = await getAllocation(vlanId);
  if (!allocation) throw notFound('VLAN');
  if (!(await markReleasing(allocation.reseller_id, vlanId))) throw notFound('VLAN');
  const sites = await listSites(allocation.reseller_id);
  // The names' next holder starts with no open incident (and sees none of these alerts:
  // functions/monitoring/alerts.ts shows a reseller the alerts raised while it held the site).
  // Before the transaction, so that a release cut short and finished later still does it.
  await Promise.all([allocation.nas_id, ...sites.map((s) => s.nas_id)].map(closeSiteIncidents));
  await deleteSites(sites);
  if (!(await releaseTx(allocation, defaultRules(vlanId)))) throw notFound('VLAN');
  log.info('vlan released', { vlan_id: vlanId });
}
