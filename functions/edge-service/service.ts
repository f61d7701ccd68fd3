// The in-country edge's service: FreeRADIUS's calls forwarded to the region, or answered from its replica during a cut.

import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeEqual } from '../core/compare.js';
import { requestAttributes } from '../radius/attributes.js';
import { EdgeClock, type TimeSource } from './clock.js';
import { Journal, type JournalEntry, JournalFull } from './journal.js';
import { type LinkState, startLink } from './link.js';
import { EdgeState } from './offline.js';
import { type RegionAnswer, regionOf } from './region.js';

/**
 * The in-country edge's service (docs/outage.md): its FreeRADIUS (the shipped configuration,
 * RADIUS_API_URL pointing here on loopback) asks it exactly what the region's front asks the API.
 *
 * - **Link up**: each call is forwarded to the region's edge rows (`/api/v1/edge/radius/<call>`,
 *   the same decision as the front's) with the edge's own token; the edge learns from the answers.
 *   A call the region answers with a 5xx or a 429, or does not answer within `forwardTimeoutMs`,
 *   is answered from the replica, that call alone: a login the replica lets in at once, a login it
 *   would refuse after waiting for the region up to `answerBudgetMs` (it may know the code), a
 *   report journaled and acknowledged. The link goes down only after `downAfter` such failures in
 *   a row (a call unanswered after three forward timeouts counts as one), never on one slow answer.
 * - **Link down**: every call is decided here at once: logins from the replica, accounting
 *   journaled to disk (fsync'd) before it is acknowledged; a cheap probe asks the region every
 *   `probeMs` (longer when it sent a Retry-After). When it answers, the journal is replayed
 *   (functions/edge-service/replay.ts) before any new accounting is forwarded, then the replica
 *   is fetched again.
 * - **Disk full**: logins are still answered from memory (not journaled: counted and logged);
 *   accounting is not acknowledged, so routers resend it; the count is logged again when the link
 *   returns.
 * - **Clock**: no offline decision while the clock is earlier than the latest time the edge has
 *   seen (functions/edge-service/clock.ts).
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
  /** How long a forwarded call may take before the edge answers it from its replica (ms). */
  forwardTimeoutMs?: number;
  /** How long a login the replica would refuse waits for the region (ms; FreeRADIUS waits 2 s). */
  answerBudgetMs?: number;
  /** Failed forwards in a row that mark the link down. */
  downAfter?: number;
  probeMs?: number;
  syncMs?: number;
  leaseS?: number;
  interimS?: number;
  /** Journal entries replayed at once (never two of one code). */
  replayParallel?: number;
  /** The clocks (tests set them back). */
  time?: TimeSource;
  /** Where the edge's log lines go. */
  say?: (line: string) => void;
}

type Route = 'authorize' | 'post-auth' | 'accounting' | 'client';
const ROUTES = new Set<Route>(['authorize', 'post-auth', 'accounting', 'client']);

/** What the edge refused or could not keep, since the link was last up. */
interface Faults {
  diskFullReports: number;
  unjournaledLogins: number;
  clockRefusals: number;
}

interface EdgeService {
  url: string;
  events: EventEmitter;
  link: () => LinkState;
  journal: Journal;
  state: EdgeState;
  clock: EdgeClock;
  faults: () => Faults;
  /** Fetches the replica now. */
  sync: () => Promise<boolean>;
  close: () => Promise<void>;
}

interface Decision {
  status: number;
  body?: unknown;
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

const sleep = (ms: number) =>
  new Promise<'slow'>((r) => {
    setTimeout(() => r('slow'), ms).unref();
  });

/** A login refused because the clock cannot be trusted: the subscriber is told to try again. */
const CLOCK_MESSAGE = 'Relais local : horloge en cours de réglage, réessayez dans quelques minutes';

export async function startEdge(o: EdgeOptions): Promise<EdgeService> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const say = o.say ?? (() => undefined);
  const forwardTimeoutMs = o.forwardTimeoutMs ?? 1000;
  const answerBudgetMs = Math.max(forwardTimeoutMs, o.answerBudgetMs ?? 1700);
  /** A forwarded call unanswered this long counts as a failure of the link. */
  const slowMs = Math.max(3 * forwardTimeoutMs, answerBudgetMs);
  const journal = new Journal(o.dataDir, say);
  const state = new EdgeState(o.dataDir, (o.leaseS ?? 660) * 1000, o.interimS ?? 300);
  const clock = new EdgeClock(o.time);
  clock.see(journal.lastAt);
  clock.see(Date.parse(state.replica?.generated_at ?? ''));
  const events = new EventEmitter();
  const region = regionOf(o.regionUrl, o.token);
  const faults: Faults = { diskFullReports: 0, unjournaledLogins: 0, clockRefusals: 0 };
  const link = startLink({
    region,
    journal,
    state,
    clock,
    events,
    say,
    slowMs,
    downAfter: o.downAfter ?? 3,
    probeMs: o.probeMs ?? 5000,
    syncMs: o.syncMs ?? 60_000,
    replayParallel: o.replayParallel ?? 8,
    onUp: () => {
      if (faults.diskFullReports || faults.unjournaledLogins || faults.clockRefusals)
        say(
          `while the link was down: ${faults.diskFullReports} reports not acknowledged (disk full; routers resent them), ` +
            `${faults.unjournaledLogins} logins answered but not journaled (disk full), ` +
            `${faults.clockRefusals} logins refused (clock behind)`,
        );
      Object.assign(faults, { diskFullReports: 0, unjournaledLogins: 0, clockRefusals: 0 });
    },
  });

  /** Journals an entry; false when the disk refused it. */
  const keep = (entry: JournalEntry): boolean => {
    try {
      journal.append(entry);
    } catch (error) {
      if (!(error instanceof JournalFull)) throw error;
      if (!faults.diskFullReports && !faults.unjournaledLogins)
        say(
          `journal: disk full (${error.message}): accounting not acknowledged, logins answered from memory`,
        );
      events.emit('disk-full', entry.route);
      return false;
    }
    // Something is owed to the region while it answers: replay it soon.
    link.owed();
    return true;
  };

  /** The clock may decide: not earlier than the latest time the edge has seen. */
  const clockRefuses = (now: number): Decision | undefined => {
    const behind = clock.behindBy(now);
    if (!behind) return undefined;
    if (!faults.clockRefusals)
      say(
        `clock: ${Math.round(behind / 1000)} s earlier than the latest time seen (${new Date(clock.latestSeen).toISOString()}): ` +
          'no login decided here until it is set (systemd-timesyncd)',
      );
    faults.clockRefusals += 1;
    return { status: 401, body: { 'reply:Reply-Message': { value: CLOCK_MESSAGE, do_xlat: false } } };
  };

  /** Decides from what the edge has (the region cannot answer, or the journal still holds accounting). */
  const decide = async (
    route: Route,
    text: string,
    attrs: Map<string, string>,
    now: number,
  ): Promise<Decision> => {
    switch (route) {
      case 'client': {
        const client = state.client(attrs.get('Hotspot-NAS-IP') ?? '');
        return client ? { status: 200, body: client } : { status: 404, body: {} };
      }
      case 'accounting':
        // Not acknowledged unless on disk: the router resends it.
        if (!keep({ route: 'accounting', at: now, body: JSON.parse(text) })) {
          faults.diskFullReports += 1;
          return { status: 503, body: {} };
        }
        clock.see(now);
        await state.account(attrs, now, true);
        return { status: 204 };
      case 'authorize': {
        const refused = clockRefuses(now);
        if (refused) return refused;
        const decided = await state.login(attrs, now);
        if (decided.recorded && !keep({ route: 'authorize', at: now, body: JSON.parse(text) }))
          faults.unjournaledLogins += 1;
        events.emit('offline-login', decided.status);
        return decided;
      }
      case 'post-auth': {
        const refused = clockRefuses(now);
        if (refused)
          return { status: 200, body: { ...(refused.body as object), 'control:Hotspot-Login-Refused': 1 } };
        // The region's post-auth: a refusal is a 200 that says so (control:Hotspot-Login-Refused).
        const decided = await state.postAuth(attrs, now);
        if (decided.recorded && !keep({ route: 'post-auth', at: now, body: JSON.parse(text) }))
          faults.unjournaledLogins += 1;
        return decided;
      }
    }
  };

  /** What the edge learns from the region's answer to a forwarded call. */
  const learn = async (
    route: Route,
    attrs: Map<string, string>,
    now: number,
    answer: { status: number; body: string },
  ) => {
    if (route === 'accounting') await state.account(attrs, now, false);
    if (route === 'authorize' && answer.status === 200 && answer.body.includes('Hotspot-Login-Recorded'))
      await state.account(
        new Map([...attrs, ['Acct-Status-Type', 'Start'], ['Acct-Unique-Session-Id', `login:${now}`]]),
        now,
        false,
      );
  };

  /** Forwards a call; undefined when the region could not answer it in time (then it is decided here). */
  const forward = async (
    route: Route,
    text: string,
    attrs: Map<string, string>,
    now: number,
  ): Promise<Extract<RegionAnswer, { ok: true }> | Decision | undefined> => {
    const call = region.post(`/api/v1/edge/radius/${route}`, text, slowMs).then((answer) => {
      link.judge(answer);
      return answer;
    });
    const first = await Promise.race([call, sleep(forwardTimeoutMs)]);
    if (first !== 'slow') return first.ok ? first : undefined;
    if (route !== 'authorize' && route !== 'post-auth') return undefined;
    // A slow login: what the replica lets in is let in now; a refusal waits for the region,
    // which may know the code (sold since the last sync) or have a place free.
    const decided = await decide(route, text, attrs, now);
    const refused =
      decided.status !== 200 || (decided.body as Record<string, unknown>)['control:Hotspot-Login-Refused'];
    if (!refused) return decided;
    const late = await Promise.race([call, sleep(answerBudgetMs - forwardTimeoutMs)]);
    return late !== 'slow' && late.ok ? late : decided;
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
    const now = clock.now();
    if (link.state() === 'revoked') return json(res, route === 'accounting' ? 503 : 401, {});
    // New accounting waits behind the journal: the region takes a session's reports in order.
    const behind = route === 'accounting' && (journal.size > 0 || link.replaying());
    if (link.state() === 'up' && !behind) {
      const answer = await forward(route, text, attrs, now);
      if (answer && 'ok' in answer) {
        await learn(route, attrs, now, answer);
        res.writeHead(answer.status, { 'content-type': answer.contentType });
        return res.end(answer.body);
      }
      if (answer) return json(res, answer.status, answer.body);
    }
    const decided = await decide(route, text, attrs, now);
    return json(res, decided.status, decided.body);
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
    link: () => link.state(),
    journal,
    state,
    clock,
    faults: () => ({ ...faults }),
    sync: link.sync,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await link.close();
      region.close();
      state.flush();
      journal.close();
    },
  };
}
