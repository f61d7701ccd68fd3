// A reseller's own forfaits: within the platform's bounds, created, changed, ordered and hidden.

import { randomUUID } from 'node:crypto';
import { assertOwns, resellerInScope } from '../core/access.js';
import { AppError, notFound, validation } from '../core/errors.js';
import type { OperatorPrincipal } from '../core/principal.js';
import {
  createOwnForfait,
  type Forfait,
  getForfait,
  listOwnForfaits,
  type OwnForfait,
  updateOwnForfait,
} from '../store/forfaits.js';
import { getNas } from '../store/nas.js';
import { untilSettled } from '../store/retry.js';
import { billingSettings } from './settings.js';

/**
 * A reseller's own forfaits: made, changed, ordered and hidden by the reseller, within the
 * operator's bounds (billingSettings: OWN_FORFAIT_*). They are sold only at the reseller's
 * hotspots (all of them, or the `nas_ids` listed): the sale rule is `forfaitForSale` in
 * functions/billing/ledger.ts.
 */

export type OwnForfaitInput = Omit<Forfait, 'id'> & { nas_ids?: string[]; hidden?: boolean };
export type OwnForfaitChanges = Partial<OwnForfaitInput & { position: number }>;

/** The operator's bounds: a price or duration outside them is refused (400 ERR_FORFAIT_OUT_OF_BOUNDS). */
function checkBounds(f: { price_fcfa?: number; duration_hours?: number }): void {
  const s = billingSettings();
  const details = [
    ...(f.price_fcfa !== undefined &&
    (f.price_fcfa < s.OWN_FORFAIT_MIN_PRICE_FCFA || f.price_fcfa > s.OWN_FORFAIT_MAX_PRICE_FCFA)
      ? [
          {
            path: 'body.price_fcfa',
            message: `must be ${s.OWN_FORFAIT_MIN_PRICE_FCFA}..${s.OWN_FORFAIT_MAX_PRICE_FCFA}`,
          },
        ]
      : []),
    ...(f.duration_hours !== undefined && f.duration_hours > s.OWN_FORFAIT_MAX_DURATION_HOURS
      ? [{ path: 'body.duration_hours', message: `must be at most ${s.OWN_FORFAIT_MAX_DURATION_HOURS}` }]
      : []),
  ];
  if (details.length)
    throw new AppError('ERR_FORFAIT_OUT_OF_BOUNDS', 'Outside the operator bounds', { details });
}

/** The hotspots named must all be the reseller's (another's is "not found", as a NAS is). */
async function checkHotspots(resellerId: string, nasIds: string[] | undefined): Promise<void> {
  for (const nasId of new Set(nasIds ?? [])) {
    if ((await getNas(nasId))?.reseller_id !== resellerId) throw notFound('NAS');
  }
}

/** The bounds a console shows beside the form. */
export const ownForfaitBounds = () => {
  const s = billingSettings();
  return {
    min_price_fcfa: s.OWN_FORFAIT_MIN_PRICE_FCFA,
    max_price_fcfa: s.OWN_FORFAIT_MAX_PRICE_FCFA,
    max_duration_hours: s.OWN_FORFAIT_MAX_DURATION_HOURS,
    max_count: s.OWN_FORFAITS_MAX,
  };
};

export async function ownForfaits(principal: OperatorPrincipal, asked: string | undefined) {
  const resellerId = resellerInScope(principal, asked);
  const items = await listOwnForfaits(resellerId);
  return { items: items.map(ownForfaitView), bounds: ownForfaitBounds() };
}

export async function makeOwnForfait(
  principal: OperatorPrincipal,
  asked: string | undefined,
  input: OwnForfaitInput,
) {
  const resellerId = resellerInScope(principal, asked);
  checkBounds(input);
  await checkHotspots(resellerId, input.nas_ids);
  const made = await createOwnForfait(
    resellerId,
    { ...input, id: randomUUID() },
    billingSettings().OWN_FORFAITS_MAX,
  );
  if (!made)
    throw new AppError('ERR_FORFAIT_LIMIT', `At most ${billingSettings().OWN_FORFAITS_MAX} forfaits`);
  return ownForfaitView(made);
}

export async function changeOwnForfait(
  principal: OperatorPrincipal,
  asked: string | undefined,
  id: string,
  changes: OwnForfaitChanges,
) {
  const resellerId = resellerInScope(principal, asked);
  checkBounds(changes);
  await checkHotspots(resellerId, changes.nas_ids);
  return untilSettled(
    async () => {
      const read = await getForfait(id);
      const current = read?.reseller_id === resellerId ? (read as OwnForfait) : undefined;
      // Another reseller's forfait, or the platform's, is "not found": ids do not leak.
      assertOwns(principal, current, 'Forfait');
      // The forfait as it would be, checked whole: a change naming only one rate is judged
      // against the other as stored, and written only while that one is still as read.
      const rates = { cir_kbps: current.cir_kbps, mir_kbps: current.mir_kbps };
      checkRates({ ...rates, ...changes });
      const updated = await updateOwnForfait(resellerId, id, changes, rates);
      return updated ? ownForfaitView(updated) : undefined;
    },
    () => {
      throw new AppError('ERR_CONFLICT', 'This forfait changed meanwhile: try again');
    },
    3,
  );
}

/** A forfait's guaranteed rate never above its maximum (the router would refuse the pair). */
function checkRates(f: { cir_kbps: number; mir_kbps: number }): void {
  if (f.cir_kbps > f.mir_kbps)
    throw validation('cir_kbps must not exceed mir_kbps', [
      { path: 'body.cir_kbps', message: `must not exceed mir_kbps (${f.mir_kbps})` },
    ]);
}

/** An own forfait as its reseller's console reads it. */
export const ownForfaitView = (f: OwnForfait) => ({
  id: f.id,
  name: f.name,
  price_fcfa: f.price_fcfa,
  duration_hours: f.duration_hours,
  data_limit_mb: f.data_limit_mb,
  cir_kbps: f.cir_kbps,
  mir_kbps: f.mir_kbps,
  max_devices: f.max_devices ?? 1,
  time_counts: f.time_counts ?? 'first_login',
  nas_ids: f.nas_ids ?? [],
  position: f.position,
  hidden: f.hidden,
  updated_at: f.updated_at,
});
