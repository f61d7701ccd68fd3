// The in-country edge's replica, as the region hands it out: a first sync in pages, then the changes since a cursor.
import { AppError } from '../core/errors.js';
import type { EdgePrincipal } from '../core/principal.js';
import { standing } from '../radius/standing.js';
import { routerKeys } from '../routers/keys-client.js';
import { Access, type AccessCode, REPLICA_SHARDS, replicaPartition } from '../store/access-codes.js';
import { batchGet, type Item } from '../store/entity.js';
import { Nas, type NasVendor } from '../store/nas.js';
import { queryPage } from '../store/query.js';
import { routersOfReseller } from '../store/routers.js';

/**
 * What an in-country edge needs to answer its hotspots while the country is cut from the region
 * (docs/outage.md): its resellers' active routers (a UDP router's secret opened: the edge's
 * FreeRADIUS checks the router's packets with it; a RadSec router's certificate serial), their NAS
 * ids' vendors, and every code of its resellers that may still log in: printed cards in stock,
 * codes sold by mobile money, by agents for cash, top-ups, own forfaits, used or not.
 *
 * The codes come from one index (`replicaChanges`, gsi6): a reseller's live codes in
 * REPLICA_SHARDS partitions, each sorted by the code's last change for the edge (its sale, its
 * first use, a top-up, a revocation, a tenth of its data: functions/radius/code-usage.ts). An
 * edge's first sync reads those partitions whole, in pages (`next_page`), each within the
 * function's limits (PAGE_CODES codes, PAGE_MS of reading); its last page hands a `cursor`, and
 * each later sync reads only the changes since it (every shard past the cursor: calls and read
 * units in proportion to the changes, not the stock). A code that may no longer log in is sent
 * as `removed`; a first sync that meets one takes it out of the index (a top-up brings it back),
 * so the stock read stays the live stock.
 */
export interface ReplicaCode {
  code: string;
  reseller_id: string;
  /** `voucher`: a printed card (the guess budgets treat it apart: functions/radius/guesses.ts). */
  source?: AccessCode['source'];
  offer: AccessCode['offer'];
  started_at?: string;
  expires_at?: string;
  use_by?: string;
  used_bytes: number;
}

export interface ReplicaRouter {
  router_id: string;
  reseller_id: string;
  transport: 'radsec' | 'udp';
  source_ip?: string;
  secret?: string;
  /** A RadSec router's current certificate serial: the edge's FreeRADIUS terminates its TLS. */
  cert_serial?: string;
  nas_ids: string[];
}

export interface Replica {
  edge_id: string;
  generated_at: string;
  routers: ReplicaRouter[];
  nas: { nas_id: string; reseller_id: string; vendor: NasVendor }[];
  codes: ReplicaCode[];
  /** Where the next sync starts (the changes since): absent until a first sync is whole. */
  cursor?: string;
}

/** One answer of `POST /edge/replica`: a page of a first sync, or of the changes since a cursor. */
export interface ReplicaPage {
  edge_id: string;
  generated_at: string;
  /** The routers and NAS ids, whole, on a sync's first page (absent on the pages after). */
  routers?: ReplicaRouter[];
  nas?: Replica['nas'];
  codes: ReplicaCode[];
  /** Codes that may no longer log in (a change since the cursor ended them). */
  removed: string[];
  /** `full`: a first sync (the codes replace the edge's); `changes`: they update them. */
  kind: 'full' | 'changes';
  /** Asked next with `page`, until absent. */
  next_page?: string;
  /** On the last page: the cursor of the next sync. */
  cursor?: string;
}

/** Codes per page: about 250 bytes each, far below the 6 MB a function may answer. */
export const PAGE_CODES = 4000;
/** Reading time per page, far below the function's timeout. */
const PAGE_MS = 3000;
/**
 * Changes are read again from this long before the previous sync began: an index is eventually
 * consistent, and writers' clocks differ by less than this.
 */
export const SETTLE_MS = 30_000;
/** Codes found ended that a page takes out of the index at most. */
const PRUNE_PER_PAGE = 500;

/** Keys per BatchGetItem (DynamoDB's limit). */
const BATCH = 100;

/** Where a sync stands between its pages (opaque to the edge). */
interface Position {
  /** The lower bound of change times (a later sync), else a first sync. */
  since?: string;
  /** The sync's time: its cursor is this less SETTLE_MS. */
  at: number;
  /** The partition read next (its resellers sorted, then shards) and where in it. */
  part: number;
  start?: Item;
}

const encode = (p: Position) => Buffer.from(JSON.stringify(p)).toString('base64url');

const badPage = () =>
  new AppError('ERR_VALIDATION', 'Invalid page or cursor', {
    details: [{ path: 'body.page', message: 'not one this region handed out' }],
  });

function decode(token: string, partitions: readonly string[]): Position {
  let p: Position;
  try {
    p = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Position;
  } catch {
    throw badPage();
  }
  const ok =
    typeof p === 'object' &&
    p !== null &&
    Number.isInteger(p.part) &&
    p.part >= 0 &&
    p.part <= partitions.length &&
    Number.isFinite(p.at) &&
    (p.since === undefined || typeof p.since === 'string') &&
    // A start key of another partition would read what this edge may not: refused.
    (p.start === undefined || (typeof p.start === 'object' && p.start?.gsi6pk === partitions[p.part]));
  if (!ok) throw badPage();
  return p;
}

/** The cursor of a sync begun at `at`. */
const cursorOf = (at: number) => new Date(at - SETTLE_MS).toISOString();

/** A code as the index holds it, as the rules read it (its used bytes: the replica's copy). */
const asRead = (c: AccessCode): AccessCode => ({ ...c, used_bytes: c.replica_bytes ?? 0, devices: {} });

const replicaCode = (c: AccessCode): ReplicaCode => ({
  code: c.code,
  reseller_id: c.reseller_id,
  source: c.source,
  offer: c.offer,
  ...(c.started_at ? { started_at: c.started_at } : {}),
  ...(c.expires_at ? { expires_at: c.expires_at } : {}),
  ...(c.use_by ? { use_by: c.use_by } : {}),
  used_bytes: c.replica_bytes ?? 0,
});

/**
 * Takes a code found ended out of the index, unless it changed since it was read (a top-up).
 * Never throws: a code left in costs a later first sync one more item.
 */
// Access: UpdateItem pk=CODE#<code> SET replica_gone (leaves replicaChanges, gsi6), condition replica_at as read.
async function prune(c: AccessCode, nowIso: string): Promise<void> {
  try {
    await Access.update(
      { code: c.code },
      { set: { replica_gone: nowIso }, read: c },
      c.replica_at ? Access.where.is('replica_at', c.replica_at) : Access.where.lacks('replica_at'),
    );
  } catch {
    // Left in the index: read again by the next first sync.
  }
}

/** The routers and NAS ids of `edge` (small: read whole on a sync's first page). */
async function routersOf(edge: EdgePrincipal, authorization: string) {
  const resellers = new Set(edge.resellerIds);
  const secrets = await routerKeys.edgeSecrets(authorization);
  const routers = (await Promise.all(edge.resellerIds.map((r) => routersOfReseller(r))))
    .flat()
    .filter((r) => r.status === 'active');
  const nasIds = [...new Set(routers.flatMap((r) => r.nas_ids))];
  const nas = [];
  for (let i = 0; i < nasIds.length; i += BATCH)
    for (const n of await batchGet(nasIds.slice(i, i + BATCH).map((nas_id) => [Nas, { nas_id }] as const)))
      if (n) nas.push(n);
  return {
    routers: routers.map((r): ReplicaRouter => {
      const secret = secrets[r.router_id];
      return {
        router_id: r.router_id,
        reseller_id: r.reseller_id,
        transport: r.transport,
        ...(r.source_ip ? { source_ip: r.source_ip } : {}),
        ...(secret ? { secret } : {}),
        ...(r.transport === 'radsec' && r.cert_serial ? { cert_serial: r.cert_serial } : {}),
        nas_ids: r.nas_ids,
      };
    }),
    nas: nas
      .filter((n) => resellers.has(n.reseller_id))
      .map((n) => ({ nas_id: n.nas_id, reseller_id: n.reseller_id, vendor: n.vendor ?? 'mikrotik' })),
  };
}

/**
 * One page of `edge`'s replica at `nowMs`: with neither `cursor` nor `page`, a first sync's first
 * page; with `cursor` (a previous sync's), the first page of the changes since; with `page`, the
 * page after. Its UDP routers' secrets are opened by the router keys
 * (functions/routers/router-keys.ts) for the edge's own token (`authorization`, the request's
 * header), which they check again.
 */
// Access: Query replicaChanges (gsi6) gsi6pk=REPLICA#<reseller>#<shard> [gsi6sk > cursor], paged; a page's first also routers by reseller and BatchGetItem NAS.
export async function replicaPage(
  edge: EdgePrincipal,
  ask: { cursor?: string | undefined; page?: string | undefined },
  nowMs: number,
  authorization = '',
  pageCodes = PAGE_CODES,
): Promise<ReplicaPage> {
  const partitions = [...edge.resellerIds]
    .sort()
    .flatMap((r) => Array.from({ length: REPLICA_SHARDS }, (_, s) => replicaPartition(r, s)));
  if (ask.cursor !== undefined && Number.isNaN(Date.parse(ask.cursor))) throw badPage();
  const pos: Position = ask.page
    ? decode(ask.page, partitions)
    : { ...(ask.cursor ? { since: ask.cursor } : {}), at: nowMs, part: 0 };
  const resellers = new Set(edge.resellerIds);
  const nowIso = new Date(nowMs).toISOString();
  const codes: ReplicaCode[] = [];
  const removed: string[] = [];
  const ended: AccessCode[] = [];
  const began = Date.now();
  let { part, start } = pos;
  let queried = 0;
  while (part < partitions.length && codes.length + removed.length < pageCodes) {
    // Within the function's timeout however many partitions (an edge of many resellers): the
    // rest on the next page, even when nothing was found yet.
    if (queried > 0 && Date.now() - began > PAGE_MS) break;
    queried += 1;
    const left = pageCodes - codes.length - removed.length;
    const got = await queryShard(partitions[part] as string, pos.since, start, left);
    for (const c of got.items) {
      if (!resellers.has(c.reseller_id)) continue;
      if ('refused' in standing(asRead(c), nowMs)) {
        removed.push(c.code);
        if (pos.since === undefined && ended.length < PRUNE_PER_PAGE) ended.push(c);
      } else codes.push(replicaCode(c));
    }
    if (got.next) start = got.next;
    else {
      part += 1;
      start = undefined;
    }
  }
  await Promise.all(ended.map((c) => prune(c, nowIso)));
  const first = ask.page === undefined;
  const done = part >= partitions.length;
  return {
    edge_id: edge.edgeId,
    generated_at: nowIso,
    ...(first ? await routersOf(edge, authorization) : {}),
    codes,
    // A first sync's ended codes are simply left out.
    removed: pos.since === undefined ? [] : removed,
    kind: pos.since === undefined ? 'full' : 'changes',
    ...(done
      ? { cursor: cursorOf(pos.at) }
      : { next_page: encode({ ...pos, part, ...(start ? { start } : {}) }) }),
  };
}

/** One query of a shard: the codes changed after `since` (all, without), from `start`. */
async function queryShard(pk: string, since: string | undefined, start: Item | undefined, limit: number) {
  const out = await queryPage({
    index: 'gsi6',
    pk,
    ...(since ? { sk: { gt: since } } : {}),
    limit,
    ...(start ? { start } : {}),
  });
  return { items: out.items.map((i) => Access.parse(i)), ...(out.next ? { next: out.next } : {}) };
}
