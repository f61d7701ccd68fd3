// VLAN allocation: one free id per reseller from the pool, under contention, and its release.

import { AsyncLocalStorage } from 'node:async_hooks';
import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { AppError, notFound } from '../core/errors.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { closeSessionsOfNas } from '../radius/closing.js';
import { closeSiteIncidents } from '../store/alerts.js';
import { bindingsAtNas, forgetMac } from '../store/mac-bindings.js';
import { getReseller, markReleasing } from '../store/resellers.js';
import { untilSettled } from '../store/retry.js';
import { detachNasIds, revokeRouter, routersOfReseller } from '../store/routers.js';
import { deleteSites, listSites } from '../store/sites.js';
import { type Allocation, allocateTx, getAllocation, readTaken, releaseTx } from '../store/vlans.js';
import { defaultRules } from './default-rules.js';
import { nasIdOf, slugify, ssidOf, subnetOf } from './naming.js';
import { networkSettings } from './settings.js';

const duplicate = (message: string) => new AppError('ERR_DUPLICATE_NAS_ID', message);
const exhausted = () => new AppError('ERR_VLAN_POOL_EXHAUSTED', 'No VLAN is left in the pool');

/**
 * Attempts at the allocation transaction before giving up with a 503. Each lost race (another
 * allocation took the id we picked, or held its stripe, between our read and our write) costs
 * one; each attempt picks among more free ids than the last, so races die out quickly.
 */
export const MAX_ATTEMPTS = 1000;

/**
 * Which free id an attempt takes. Alone (the only allocation running in this process, and no
 * race lost yet) it takes the lowest free id: allocations one after another get 10, 11, 12...
 * and a released id is reused, lowest first, before any higher one. Allocations running at the
 * same time have no order among themselves, so "the lowest" is not something they can all get:
 * each takes one of the lowest `window` free ids at random, the window as wide as the
 * allocations running here and doubling with each race lost, so parallel allocations pick
 * distinct ids (in distinct stripes, as consecutive ids are) rather than all fighting over one.
 * The pool still fills from the bottom. `random` is for tests.
 */
export function pickFree(free: number[], running: number, attempt: number, random = Math.random): number {
  const window = Math.min(free.length, Math.max(1, running) * 2 ** Math.min(attempt, 10));
  return free[window <= 1 ? 0 : Math.floor(random() * window)] as number;
}

// Allocations running in this process, and those waiting for a lane (VLAN_ALLOCATION_LANES).
let running = 0;
const waiting: (() => void)[] = [];
/** Set inside a lane: an allocation run by a caller that holds one does not queue again. */
const inALane = new AsyncLocalStorage<true>();

/**
 * Runs `fn` in one of this process's allocation lanes, waiting for one if all are busy. The
 * allocation route's handler takes its lane before its own clock starts (vlan-allocate.ts): a
 * request queued here is what, in AWS, another container would serve at once, so its wait
 * must not count against the function's 10 s.
 */
export async function inLane<T>(fn: () => Promise<T>): Promise<T> {
  if (inALane.getStore()) return fn();
  if (running < networkSettings().VLAN_ALLOCATION_LANES) running += 1;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await inALane.run(true, fn);
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
 * Allocates the reseller's VLAN: the lowest free id of the pool (one of the lowest few when
 * allocations run at the same time, see `pickFree`). Without a name, the name on record is used
 * (404 without one); without a site count, the one on record, else 1.
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
  // A lost race (another allocation took the id picked, or held its stripe) reads again.
  return untilSettled(
    async (attempt) => {
      const taken = new Set(await readTaken());
      const free: number[] = [];
      for (let id = VLAN_FIRST_ID; id <= last; id++) if (!taken.has(id)) free.push(id);
      // Exact: the stripes were read strongly consistent, and every allocation is on its stripe.
      if (!free.length) throw exhausted();
      const vlanId = pickFree(free, running, attempt);
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
      const result = await allocateTx({ allocation, slug, rules: defaultRules(vlanId) });
      if (result === 'ok') {
        log.info('vlan allocated', { vlan_id: vlanId, nas_id: nasId, attempts: attempt + 1 });
        countMetric('VlanAllocated');
        return allocation;
      }
      if (result === 'duplicate') throw duplicate(`${nasId} or this reseller has a VLAN already`);
      return undefined;
    },
    () => {
      throw new AppError('ERR_UNAVAILABLE', 'Too many allocations at once, try again', {
        headers: { 'Retry-After': '1' },
      });
    },
    MAX_ATTEMPTS,
  );
}

/**
 * Ends what a reseller's hotspots leave behind once their NAS ids are released, so that the
 * ids' next holder inherits nothing: each router that spoke for them loses them (revoked when
 * it spoke for nothing else), their open sessions of this reseller close (`released`, final),
 * and the devices remembered there are forgotten. Each step is idempotent: a release cut short
 * and run again does what is left.
 */
async function endHotspots(resellerId: string, nasIds: readonly string[]): Promise<void> {
  const released = new Set(nasIds);
  const nowMs = clock.now();
  for (const router of await routersOfReseller(resellerId)) {
    if (router.status !== 'active' || !router.nas_ids.some((id) => released.has(id))) continue;
    const rest = router.nas_ids.filter((id) => !released.has(id));
    if (rest.length > 0) await detachNasIds(router, rest);
    else await revokeRouter(router, new Date(nowMs).toISOString());
  }
  for (const nasId of nasIds) {
    await closeSessionsOfNas(nasId, nowMs, { resellerId, reason: 'released' });
    for (const binding of await bindingsAtNas(nasId, resellerId)) await forgetMac(binding);
  }
}

/**
 * Releases a VLAN: what its hotspots leave (routers, sessions, remembered devices:
 * `endHotspots`), its sites (with their NAS ids and branding), then in one transaction
 * the allocation, its NAS id, branding and rules, the reseller's hold, and the id out of its
 * stripe's taken set (the lowest free id is the next one handed out). The reseller is marked first, so no site can
 * be added meanwhile; a release cut short leaves the VLAN allocated and is finished by the next.
 */
export async function releaseVlan(vlanId: number): Promise<void> {
  const allocation = await getAllocation(vlanId);
  if (!allocation) throw notFound('VLAN');
  if (!(await markReleasing(allocation.reseller_id, vlanId))) throw notFound('VLAN');
  const sites = await listSites(allocation.reseller_id);
  const nasIds = [allocation.nas_id, ...sites.map((s) => s.nas_id)];
  // The names' next holder starts with no open incident (and sees none of these alerts:
  // functions/monitoring/alerts.ts shows a reseller the alerts raised while it held the site).
  // Before the transaction, so that a release cut short and finished later still does it.
  await Promise.all(nasIds.map(closeSiteIncidents));
  await endHotspots(allocation.reseller_id, nasIds);
  await deleteSites(sites);
  if (!(await releaseTx(allocation, defaultRules(vlanId)))) throw notFound('VLAN');
  log.info('vlan released', { vlan_id: vlanId });
}
