// The edge's link to its region: down only after failures in a row, probed while down, replayed before up.

import type { EventEmitter } from 'node:events';
import type { ReplicaPage } from '../edge/replica.js';
import type { EdgeClock } from './clock.js';
import type { Journal, JournalEntry } from './journal.js';
import type { EdgeState } from './offline.js';
import type { Region, RegionAnswer } from './region.js';
import { replayRound, type SendOutcome } from './replay.js';

/**
 * The edge's link to its region (docs/outage.md, "The link"), with hysteresis: it goes down only
 * after `downAfter` failed calls in a row, never on one slow, failed or throttled answer. While it
 * is down a probe asks the region every `probeMs` (or its Retry-After): the journal's next entry
 * when there is one (the replay is the probe), else a client lookup of no address, which reads
 * nothing. The journal is replayed before the link is up again, then the replica is fetched.
 */
export type LinkState = 'up' | 'down' | 'revoked';

export interface RegionLink {
  state: () => LinkState;
  /** The journal is being replayed: new accounting waits behind it. */
  replaying: () => boolean;
  /** One forwarded call's outcome. */
  judge: (answer: RegionAnswer) => void;
  /** Something was journaled while the link is up: replayed soon. */
  owed: () => void;
  /** Fetches the replica now; true when the region answered. */
  sync: () => Promise<boolean>;
  close: () => Promise<void>;
}

export function startLink(o: {
  region: Region;
  journal: Journal;
  state: EdgeState;
  clock: EdgeClock;
  events: EventEmitter;
  say: (line: string) => void;
  /** A call unanswered this long fails. */
  slowMs: number;
  downAfter: number;
  probeMs: number;
  syncMs: number;
  replayParallel: number;
  /** The link is up again. */
  onUp: () => void;
}): RegionLink {
  const { region, journal, state, clock, events, say, slowMs, downAfter, probeMs, syncMs } = o;
  // A journal left by the last run holds a cut's accounting: start as cut, and replay it at once.
  let link: LinkState = journal.size > 0 ? 'down' : 'up';
  let replaying = false;
  let failures = 0;
  let closed = false;

  const setLink = (next: LinkState) => {
    if (link === next || link === 'revoked') return;
    link = next;
    events.emit('link', next);
    if (next === 'up') o.onUp();
  };

  const revoke = () => {
    // The region refuses this edge's token: revoked. It forgets its routers and codes (a 502 of
    // a region in trouble is no refusal: the edge keeps what it has).
    if (link === 'revoked') return;
    state.wipe();
    setLink('revoked');
    events.emit('revoked');
  };

  /** A call the region did not answer: the link goes down after `downAfter` in a row. */
  const failed = (why: string) => {
    failures += 1;
    if (link === 'up' && failures >= downAfter) goDown(why);
  };
  /** One forwarded call's outcome, for the link's state. */
  const judge = (answer: RegionAnswer) => {
    if (answer.ok) failures = 0;
    else if (answer.reason === 'revoked') revoke();
    else failed(answer.reason);
  };

  let retrying: NodeJS.Timeout | undefined;
  /** Asks the region again after `probeMs` (or its Retry-After, when longer). */
  const retryLater = (afterMs = 0) => {
    if (closed || link === 'revoked') return;
    retrying ??= setTimeout(probe, Math.max(probeMs, afterMs));
  };
  const goDown = (why: string) => {
    say(`region not answering (${why}): deciding here`);
    setLink('down');
    retryLater();
  };

  /**
   * Asks the region for the replica, page after page (functions/edge/replica.ts): the changes
   * since the last sync's cursor, or the whole of it the first time (or when the region no longer
   * takes the cursor); true when it answered every page.
   */
  const sync = async (): Promise<boolean> => {
    const pages: ReplicaPage[] = [];
    const cursor = state.cursor();
    let ask: { cursor?: string; page?: string } = cursor ? { cursor } : {};
    for (;;) {
      const answer = await region.post('/api/v1/edge/replica', ask, Math.max(slowMs, 10_000));
      if (!answer.ok) {
        if (answer.reason === 'revoked') revoke();
        return false;
      }
      // A cursor the region refuses (400): a first sync again.
      if (answer.status === 400 && ask.cursor) {
        say('replica: the region refused the cursor: a first sync again');
        pages.length = 0;
        ask = {};
        continue;
      }
      if (answer.status !== 200) return false;
      const page = JSON.parse(answer.body) as ReplicaPage;
      pages.push(page);
      if (!page.next_page) break;
      ask = { page: page.next_page };
    }
    // Taken once the journal is empty: what was counted here is in it then.
    if (journal.size === 0 && !replaying) {
      state.take(pages);
      clock.see(Date.parse(pages[0]?.generated_at ?? ''));
      events.emit('synced', state.replica);
    }
    return true;
  };

  /** One journal entry to the region: a report taken on 2xx; a login's answer, whatever it is, is final. */
  const send = async (entry: JournalEntry): Promise<SendOutcome> => {
    const answer = await region.post(`/api/v1/edge/radius/${entry.route}`, entry.body, slowMs);
    if (answer.ok) {
      if (entry.route === 'accounting' && answer.status >= 300)
        return { refused: `the region refused it for good (${answer.status})` };
      return { taken: true };
    }
    if (answer.reason === 'revoked') return { retry: 'the region refused this edge token', revoked: true };
    return {
      retry: `region ${answer.reason}${answer.status ? ` (${answer.status})` : ''}`,
      ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }),
    };
  };

  /** Replays the journal until it is empty (then the link is up) or the region stops taking it. */
  const drainNow = async (): Promise<void> => {
    let replayed = 0;
    replaying = true;
    try {
      while (journal.size > 0 && !closed) {
        const round = await replayRound(journal, send, { parallel: o.replayParallel, say });
        replayed += round.taken + round.setAside;
        if (round.revoked) return revoke();
        if (round.stopped) {
          failed(round.stopped);
          return retryLater(round.retryAfterMs);
        }
        if (round.taken + round.setAside === 0 && journal.recount() > 0) {
          say(`journal: ${journal.size} entries counted past its last line: retried later`);
          return retryLater();
        }
      }
      // No await between the empty journal and the link up: no report can slip in between.
      replaying = false;
      if (closed) return;
      if (replayed > 0) events.emit('replayed', replayed);
      failures = 0;
      if (link === 'down') {
        setLink('up');
        void sync();
      }
    } finally {
      replaying = false;
    }
  };
  let draining: Promise<void> | undefined;
  const drain = (): Promise<void> => {
    draining ??= drainNow().finally(() => {
      draining = undefined;
    });
    return draining;
  };

  /** While the link is down: a journal to replay is its own probe; else a call that reads nothing. */
  const probe = async () => {
    retrying = undefined;
    if (closed || link === 'revoked') return;
    if (journal.size > 0) return drain();
    if (link === 'up') return;
    const answer = await region.post('/api/v1/edge/radius/client', {}, slowMs);
    if (answer.ok) {
      failures = 0;
      setLink('up');
      void sync();
      return;
    }
    if (answer.reason === 'revoked') return revoke();
    retryLater(answer.retryAfterMs);
  };
  if (link === 'down') retrying = setTimeout(probe, 0);
  const syncing = setInterval(() => {
    if (link === 'up') void sync();
  }, syncMs);

  return {
    state: () => link,
    replaying: () => replaying,
    judge,
    owed: () => {
      if (link === 'up') retryLater(0);
    },
    sync,
    close: async () => {
      closed = true;
      clearInterval(syncing);
      clearTimeout(retrying);
      await draining;
    },
  };
}
