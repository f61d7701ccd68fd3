// The routers as the RADIUS front holds them in memory, refreshed from the table.

import { log } from '../core/log.js';
import { getRouterAddress, type RouterRecord, routersChangedSince } from '../store/routers.js';

/**
 * The routers as the RADIUS front holds them in memory (functions/front/service.ts): loaded
 * at start, kept current in the background, so that FreeRADIUS's client lookup and the
 * revocation check are memory reads, never a wait on DynamoDB inside FreeRADIUS's socket loop.
 *
 * - At start: every router (the byChange index, one partition). The service answers its health
 *   check only then, and run.sh starts FreeRADIUS only after that.
 * - Every `refreshMs` (ROUTERS_REFRESH_MS, 5 s): the routers changed since the last read
 *   (registered, revoked, new credentials, NAS ids taken off: each sets `changed_at`), read
 *   back from `marginMs` (60 s) before that read began, which covers the index's propagation
 *   (usually under a second) and the writers' clock skew. A change is therefore held within
 *   `refreshMs` plus the index's propagation.
 * - Every `fullMs` (1 h): everything again, in case a change was missed (a router written by
 *   hand, or before `changed_at` existed).
 * - An address it does not know is answered at once (no client) and looked up in the background
 *   (one consistent GetItem of its claim, at most once per `negativeMs` per address): a router
 *   registered a moment ago is a client at its next retransmission.
 *
 * A failed read keeps what is held: during a DynamoDB outage the routers known go on.
 */

/** A UDP router's client definition, its secret sealed. */
export interface HeldClient {
  router_id: string;
  secret_box: string;
  /** Whose router: an in-country edge is told of its own resellers' routers only. */
  reseller_id?: string;
}

export interface DirectorySettings {
  refreshMs: number;
  marginMs: number;
  fullMs: number;
  negativeMs: number;
}

export const DIRECTORY_DEFAULTS: DirectorySettings = {
  refreshMs: 5000,
  marginMs: 60_000,
  fullMs: 3_600_000,
  negativeMs: 5000,
};

export interface RouterDirectory {
  /** The active UDP router registered at this (canonical) address; undefined asks in the background. */
  clientAt(address: string): HeldClient | undefined;
  /**
   * The router as last read, if held: the caller's judgement reads it (functions/radius/
   * caller.ts). Its `last_heard_at` is the one read, raised by this process's own heartbeats.
   */
  router(routerId: string): RouterRecord | undefined;
  /** Settles once every router was read (the first full load). */
  readonly ready: Promise<void>;
  /** How many routers are held. */
  size(): number;
  stop(): void;
}

let active: RouterDirectory | undefined;

/** The directory of this process, when it is the RADIUS front's service; undefined in a Lambda function. */
export const routerDirectory = (): RouterDirectory | undefined => active;

/** Starts this process's directory (one per process: the service's). */
export function startRouterDirectory(settings: DirectorySettings = DIRECTORY_DEFAULTS): RouterDirectory {
  active?.stop();
  let routers = new Map<string, RouterRecord>();
  let clients = new Map<string, HeldClient>();
  /** When each unknown address was last looked up (bounded: cleared past 10,000). */
  const asked = new Map<string, number>();
  let since: string | undefined;
  let lastFull = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastProblem = '';

  const apply = (h: RouterRecord) => {
    routers.set(h.router_id, h);
    const address = h.source_ip;
    if (!address) return;
    if (h.status === 'active' && h.transport === 'udp' && h.secret_box)
      clients.set(address, { router_id: h.router_id, secret_box: h.secret_box, reseller_id: h.reseller_id });
    else if (clients.get(address)?.router_id === h.router_id) clients.delete(address);
  };

  const read = async () => {
    const started = Date.now();
    const full = since === undefined || started - lastFull >= settings.fullMs;
    const changed = await routersChangedSince(full ? undefined : since);
    if (full) {
      routers = new Map();
      clients = new Map();
      lastFull = started;
    }
    for (const r of changed) apply(r);
    since = new Date(started - settings.marginMs).toISOString();
  };

  const loop = async () => {
    try {
      await read();
      lastProblem = '';
    } catch (error) {
      const what = (error as Error).name;
      if (what !== lastProblem)
        log.warn('router directory: read failed, keeping what is held', { error: what });
      lastProblem = what;
    }
    if (!stopped) timer = setTimeout(() => void loop(), settings.refreshMs);
  };

  const lookUp = async (address: string) => {
    try {
      const claim = await getRouterAddress(address);
      if (!claim?.router_id || !claim.secret_box) return;
      // Revoked since the claim was read: the directory knows better.
      if (routers.get(claim.router_id)?.status === 'revoked') return;
      clients.set(address, {
        router_id: claim.router_id,
        secret_box: claim.secret_box,
        ...(claim.reseller_id ? { reseller_id: claim.reseller_id } : {}),
      });
    } catch (error) {
      log.warn('router directory: address lookup failed', { error: (error as Error).name });
    }
  };

  let first: Promise<void>;
  const ready = new Promise<void>((resolve) => {
    // The first load is tried until it succeeds: the service is not healthy before.
    first = (async () => {
      for (;;) {
        try {
          await read();
          return resolve();
        } catch (error) {
          log.warn('router directory: first load failed, trying again', { error: (error as Error).name });
          await new Promise((r) => setTimeout(r, Math.min(settings.refreshMs, 1000)));
          if (stopped) return;
        }
      }
    })();
  });
  void ready.then(() => {
    if (!stopped) timer = setTimeout(() => void loop(), settings.refreshMs);
  });

  const directory: RouterDirectory = {
    clientAt(address) {
      const client = clients.get(address);
      if (client) return client;
      const now = Date.now();
      if ((asked.get(address) ?? 0) + settings.negativeMs <= now) {
        if (asked.size >= 10_000) asked.clear();
        asked.set(address, now);
        void lookUp(address);
      }
      return undefined;
    },
    router: (routerId) => routers.get(routerId),
    ready,
    size: () => routers.size,
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (active === directory) active = undefined;
      void first;
    },
  };
  active = directory;
  return directory;
}
