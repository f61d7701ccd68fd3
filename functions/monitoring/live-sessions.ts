import { openCursor, sealCursor } from '../core/cursor.js';
import { Access } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { type LivePosition, openSessionsPage } from '../store/live-sessions.js';
import { listNasIdsOfReseller } from '../store/nas.js';

/**
 * Who is online at a reseller's hotspots now, a page at a time, with what their code has left
 * (one BatchGetItem of the page's codes). The reseller is already in scope (access.ts).
 */
export async function liveSessions(
  resellerId: string,
  limit: number,
  cursor: string | undefined,
  nowMs: number,
) {
  const nasIds = (await listNasIdsOfReseller(resellerId)).sort();
  const from = (await openCursor<LivePosition>('sessions', resellerId, cursor)) ?? { n: 0 };
  const page = await openSessionsPage(resellerId, nasIds, from, limit);
  const codes = [...new Set(page.items.map((s) => s.code))];
  const read = codes.length ? await batchGet(codes.map((code) => [Access, { code }] as const)) : [];
  const byCode = new Map(read.filter((c) => c !== undefined).map((c) => [c.code, c]));
  return {
    items: page.items.map((s) => {
      const code = byCode.get(s.code);
      const end = code?.expires_at ? Date.parse(code.expires_at) : undefined;
      const cap = code?.offer.data_limit_mb;
      return {
        id: s.id,
        nas_id: s.nas_id,
        code: s.code,
        device: s.device,
        started_at: s.started_at,
        last_report_at: s.last_report_at,
        total_bytes: s.total_bytes,
        session_time_s: s.session_time_s,
        ...(end !== undefined ? { seconds_left: Math.max(0, Math.floor((end - nowMs) / 1000)) } : {}),
        ...(cap ? { data_left_mb: Math.max(0, Math.floor(cap - (code?.used_bytes ?? 0) / 1_048_576)) } : {}),
      };
    }),
    ...(page.next ? { next_cursor: await sealCursor('sessions', resellerId, page.next) } : {}),
  };
}
