// NAS restarts (Accounting-On/Off) whose sessions were not all closed within the answer, left to the sweep.

import { absentOrBelow, entity } from './entity.js';

/**
 * A NAS restart (Accounting-On/Off) whose sessions were not all closed within its RADIUS
 * answer: the rest are closed by the sweep (functions/radius/closing.ts), every session of the
 * NAS open and with no report after `before`. One per NAS: a later restart moves `before` on.
 * Written only when a restart overflows its answer's budget (hundreds of sessions on one NAS),
 * so the list is short and its partition quiet.
 */
export interface NasClose {
  nas_id: string;
  /** The restart's time (ISO): sessions that reported after it are alive and stay open. */
  before: string;
  /**
   * The NAS id's holder then: only its sessions close (the NAS id may be another reseller's by
   * the time the sweep runs). Absent on a restart recorded before it was kept: every session.
   */
  reseller_id?: string;
  /** Why they close: a restart (absent) or the NAS id's release. */
  reason?: 'nas_restart' | 'released';
}

/** A marker the sweep never finished (the NAS is gone) is dropped after this. */
const KEEP_S = 7 * 24 * 3600;

export const NasCloseEntity = entity<NasClose>('nas_close')({
  key: (c: Pick<NasClose, 'nas_id'>) => ({ pk: `NASCLOSE#${c.nas_id}`, sk: 'NASCLOSE' }),
  indexes: {
    /** Every restart still to finish, oldest first: what the sweep reads. */
    pending: { gsi: 'gsi1', pk: 'NASCLOSES#PENDING', sk: '{before}#{nas_id}' },
  },
  ttl: (c) => Math.floor(Date.parse(c.before) / 1000) + KEEP_S,
});

/** Records that a NAS's sessions up to `before` are still to close (a later restart's wins). */
// Access: PutItem pk=NASCLOSE#<nas_id> (condition: none, or an earlier `before`), gsi1pk=NASCLOSES#PENDING.
export const recordNasClose = (c: NasClose): Promise<boolean> =>
  NasCloseEntity.put(c, absentOrBelow('before', c.before));

/** The restarts still to finish, oldest first, at most `limit`. */
// Access: Query pending (gsi1) gsi1pk=NASCLOSES#PENDING, Limit.
export const pendingNasCloses = async (limit: number): Promise<NasClose[]> =>
  (await NasCloseEntity.queryIndex('pending', {}, { limit })).items;

/** A finished restart leaves the list, unless a later one of the same NAS replaced it meanwhile. */
// Access: DeleteItem pk=NASCLOSE#<nas_id> (condition: before = :before).
export const finishNasClose = (c: NasClose): Promise<boolean> =>
  NasCloseEntity.delete(c, NasCloseEntity.where.is('before', c.before));
