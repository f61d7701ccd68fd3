// Who is online at a reseller's hotspots now, a page at a time, with what their code has left.

import { openCursor, sealCursor } from '../core/cursor.js';
import { Access } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { getForfait } from '../store/forfaits.js';
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
  // Codes made before they carried their forfait's name: the name from the catalogue, once each.
  const unnamed = [...new Set([...byCode.values()].filter((c) => !c.forfait_name).map((c) => c.forfait_id))];
  const names = new Map(
    await Promise.all(unnamed.map(async (id) => [id, (await getForfait(id))?.name] as const)),
  );
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
        ...macOf(s.device),
        ...forfaitOf(code, names),
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

/** The device's MAC from its key (`<nas_id>/<MAC>`; a router that sends none: `<nas_id>/port:<n>`). */
function macOf(device: string): { mac?: string } {
  const mac = device.slice(device.indexOf('/') + 1);
  return /^[0-9A-F]{2}(:[0-9A-F]{2}){5}$/i.test(mac) ? { mac } : {};
}

function forfaitOf(
  code: { forfait_id: string; forfait_name?: string } | undefined,
  names: Map<string, string | undefined>,
): { forfait_id?: string; forfait_name?: string } {
  if (!code) return {};
  const name = code.forfait_name ?? names.get(code.forfait_id);
  return { forfait_id: code.forfait_id, ...(name ? { forfait_name: name } : {}) };
}
