// The in-country edge's service: FreeRADIUS's calls forwarded to the region, or answered from its replica during a cut.

import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeEqual } from '../core/compare.js';
import type { Replica } from '../edge/replica.js';
import { deviceKey, normalizeCode, requestAttributes } from '../radius/attributes.js';
import { Journal, type JournalEntry } from './journal.js';
import { EdgeState } from './offline.js';

/**
 * The in-country edge's service (docs/outage.md): its FreeRADIUS (the shipped configuration,
 * RADIUS_API_URL pointing here on loopback) asks it exactly what the region's front asks the API.
 * While the region answers, each call is forwarded to the region's edge rows
 * (`/api/v1/edge/radius/<call>`, the same decision as the front's) with the edge's own token; the
 * edge learns from the answers (sessions, devices). When the region does not answer within
 * `forwardTimeoutMs` (or answers 5xx), the link is down: logins are decided from the replica,
 * accounting is journaled to disk and answered, and a probe asks the region every `probeMs`.
 * When it answers again, the journal is replayed in order (a login, then its accounting) before
 * any new accounting is forwarded, and the replica is fetched again.
 */
export interface EdgeOptions {
  /** The region's API base URL. */
  regionUrl: string;
  /** This edge's token (`npm run admin -- edges add`). */
  token: string;
  /** The bearer its own FreeRADIUS sends (its RADIUS_API_SECRET). */
  localSecret: string;
  dataDir: string;
  port?: number;
  host?: string;
  forwardTimeoutMs?: number;
  probeMs?: number;
  syncMs?: number;
  leaseS?: number;
  interimS?: number;
}

type Route = 'authorize' | 'post-auth' | 'accounting' | 'client';
const ROUTES = new Set<Route>(['authorize', 'post-auth', 'accounting', 'client']);

interface EdgeService {
  url: string;
  events: EventEmitter;
  link: () => 'up' | 'down' | 'revoked';
  journal: Journal;
  state: EdgeState;
  /** Fetches the replica now (the link is up). */
  sync: () => Promise<boolean>;
  close: () => Promise<void>;
}

const json = (res: ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((done, fail) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      text += d;
    });
    req.on('end', () => done(text));
    req.on('error', fail);
  });

/** The region's answer says the edge's token is refused (revoked, or never issued). */
const refusesToken = async (res: Response): Promise<boolean> => {
  try {
    const body = (await res.json()) as { error?: { code?: unknown } };
    return body.error?.code === 'ERR_RADIUS_CREDENTIALS';
  } catch {
    return false;
  }
};

/** The device a request is about, as the region keys it. */
const keyOf = (attrs: Map<string, string>) =>
  deviceKey({
    callingStationId: attrs.get('Calling-Station-Id'),
    nasId: attrs.get('NAS-Identifier') ?? '',
    nasPort: attrs.get('NAS-Port'),
  });

export async function startEdge(o: EdgeOptions): Promise<EdgeService> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const forwardTimeoutMs = o.forwardTimeoutMs ?? 1000;
  const probeMs = o.probeMs ?? 5000;
  const syncMs = o.syncMs ?? 60_000;
  const journal = new Journal(o.dataDir);
  const state = new EdgeState(o.dataDir, (o.leaseS ?? 660) * 1000, o.interimS ?? 300);
  const events = new EventEmitter();
  const region = o.regionUrl.replace(/\/+$/, '');
  let link: 'up' | 'down' | 'revoked' = journal.size > 0 ? 'down' : 'up';
  let replaying = false;

  const post = (path: string, body: unknown, timeoutMs = forwardTimeoutMs) =>
    fetch(`${region}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });

  const setLink = (next: 'up' | 'down' | 'revoked') => {
    if (link === next || link === 'revoked') return;
    link = next;
    events.emit('link', next);
  };

  /** Asks the region for the replica; true when it answered (the link is up). */
  const sync = async (): Promise<boolean> => {
    try {
      const res = await post(
        '/api/v1/edge/replica',
        { codes: state.seenCodes() },
        Math.max(forwardTimeoutMs, 10_000),
      );
      if (res.status === 502 && (await refusesToken(res))) {
        // The region refuses this edge's token: revoked. It forgets its routers and codes (a 502
        // of a region in trouble is no refusal: the edge keeps what it has).
        state.wipe();
        setLink('revoked');
        events.emit('revoked');
        return false;
      }
      if (res.status !== 200) return false;
      const replica = (await res.json()) as Replica;
      if (journal.size === 0) {
        state.replace(replica);
        events.emit('synced', replica);
      }
      return true;
    } catch {
      return false;
    }
  };

  /** Sends the journal in order; stops at the first entry the region does not take. */
  const replay = async (): Promise<boolean> => {
    if (replaying) return false;
    replaying = true;
    try {
      const pending = journal.pending();
      let taken = 0;
      let unmarked = 0;
      for (const entry of pending) {
        if (!(await send(entry))) break;
        taken += 1;
        unmarked += 1;
        // Recorded as it goes: after a crash the rest is replayed, and the region counts once.
        if (unmarked === 50) {
          journal.markTaken(unmarked);
          unmarked = 0;
        }
      }
      if (unmarked > 0) journal.markTaken(unmarked);
      if (taken === pending.length) events.emit('replayed', taken);
      return taken === pending.length;
    } finally {
      replaying = false;
    }
  };

  const send = async (entry: JournalEntry): Promise<boolean> => {
    try {
      const res = await post(
        `/api/v1/edge/radius/${entry.route}`,
        entry.body,
        Math.max(forwardTimeoutMs, 10_000),
      );
      await res.arrayBuffer();
      // Accounting is taken on 2xx only; a login's answer, whatever it is, is final.
      return entry.route === 'accounting' ? res.status < 300 : res.status < 500;
    } catch {
      return false;
    }
  };

  let probing: NodeJS.Timeout | undefined;
  const probe = async () => {
    probing = undefined;
    if (link === 'revoked') return;
    if (await sync()) {
      // Reports journaled while the replay runs join the journal: replayed by the next round.
      let replayed = true;
      while (replayed && journal.size > 0) replayed = await replay();
      if (replayed) {
        // No await between the empty journal and the link up: no report can slip in between.
        setLink('up');
        void sync();
        return;
      }
    }
    if (link === 'down') probing = setTimeout(probe, probeMs);
  };
  const goDown = () => {
    setLink('down');
    probing ??= setTimeout(probe, probeMs);
  };
  if (link === 'down') goDown();
  const syncing = setInterval(() => {
    if (link === 'up') void sync();
  }, syncMs);

  /** Decides from what the edge has (the link is down, or the journal still holds accounting). */
  const offline = (
    route: Route,
    text: string,
    attrs: Map<string, string>,
    now: number,
    res: ServerResponse,
  ) => {
    switch (route) {
      case 'client': {
        const client = state.client(attrs.get('Hotspot-NAS-IP') ?? '');
        return client ? json(res, 200, client) : json(res, 404, {});
      }
      case 'accounting':
        journal.append({ route: 'accounting', at: now, body: JSON.parse(text) });
        state.account(attrs, now, true);
        return json(res, 204);
      case 'authorize': {
        const decided = state.login(attrs, now);
        if (decided.recorded) journal.append({ route: 'authorize', at: now, body: JSON.parse(text) });
        events.emit('offline-login', decided.status);
        return json(res, decided.status, decided.body);
      }
      case 'post-auth': {
        const decided = state.login(new Map([...attrs, ['Hotspot-Login-At-Authorize', '0']]), now);
        if (decided.status !== 200)
          return json(res, 200, { ...decided.body, 'control:Hotspot-Login-Refused': 1 });
        state.record(normalizeCode(attrs.get('User-Name') ?? ''), keyOf(attrs), now);
        journal.append({ route: 'post-auth', at: now, body: JSON.parse(text) });
        return json(res, 200, decided.body);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const route = /^\/api\/v1\/radius\/([a-z-]+)$/.exec(req.url ?? '')?.[1] as Route | undefined;
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (req.method !== 'POST' || !route || !ROUTES.has(route)) return json(res, 404, {});
    // As the region answers a front without its secret: not a 401, which would blame the subscriber.
    if (!safeEqual(bearer, o.localSecret)) return json(res, 502, {});
    const text = await readBody(req);
    let attrs: Map<string, string>;
    try {
      attrs = requestAttributes(JSON.parse(text) as Record<string, unknown>);
    } catch {
      return json(res, 400, {});
    }
    const now = Date.now();
    if (link === 'revoked') return json(res, route === 'accounting' ? 503 : 401, {});
    // New accounting waits behind the journal: the region takes a session's reports in order.
    const behind = route === 'accounting' && (journal.size > 0 || replaying);
    if (link === 'up' && !behind) {
      try {
        const answer = await post(`/api/v1/edge/radius/${route}`, text);
        const body = await answer.text();
        if (answer.status < 500) {
          if (route === 'accounting') state.account(attrs, now, false);
          if (route === 'authorize' && answer.status === 200 && body.includes('Hotspot-Login-Recorded'))
            state.account(
              new Map([...attrs, ['Acct-Status-Type', 'Start'], ['Acct-Unique-Session-Id', `login:${now}`]]),
              now,
              false,
            );
          res.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
          });
          return res.end(body);
        }
      } catch {
        // Unreachable or too slow: decided here, and the link is down until a probe answers.
      }
      goDown();
    }
    return offline(route, text, attrs, now, res);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      events.emit('error-answer', error);
      if (!res.headersSent) json(res, 503, {});
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    link: () => link,
    journal,
    state,
    sync,
    close: async () => {
      clearInterval(syncing);
      clearTimeout(probing);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      state.flush();
      journal.close();
    },
  };
}
