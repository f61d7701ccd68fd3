import { EntitlementEntity } from './entitlements.js';
import { queryCount } from './entity.js';

/**
 * Active sessions = entitlements not yet expired. Every entitlement is on gsi2 by its expiry
 * (ISO), so the count is one range query on the index, whose cost follows the live
 * entitlements, never the table.
 */
// Access: Query gsi2 gsi2pk=ENT#ACTIVE AND gsi2sk > :nowIso, Select=COUNT (paginated).
export const countActiveSessions = (nowIso: string): Promise<number> =>
  queryCount({ index: 'gsi2', pk: EntitlementEntity.indexes.gsi2.pk({}), sk: { gt: nowIso } });
