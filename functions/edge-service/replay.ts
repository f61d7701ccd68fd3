// The edge's journal replayed to the region in order per code, each round moving the cursor or stopping with a reason.

import { normalizeCode } from '../radius/attributes.js';
import type { Journal, JournalEntry, JournalLine } from './journal.js';

/**
 * The journal's replay to the region (docs/outage.md, "The journal"): streamed from the cursor,
 * a few entries in flight at once but never two of one code (a code's login, then its sessions'
 * reports, reach the region in the order they happened; codes are independent of each other).
 * Each round either moves the cursor or stops with a reason the caller logs; it never loops on
 * the same bytes:
 * - an entry the region took advances the cursor (written every 50 entries and at the end);
 * - a line that is no entry, or an entry the region refuses for good (a 4xx other than 429 to
 *   accounting), is set aside in journal.torn and passed;
 * - a region that cannot take it now (unreachable, slow, 5xx, 429) stops the round there: what
 *   follows is sent again next round (the region counts a report twice once).
 */
export type SendOutcome =
  | { taken: true }
  | { refused: string }
  | { retry: string; retryAfterMs?: number; revoked?: boolean };

export interface ReplayRound {
  /** Entries the region took, and lines set aside, this round. */
  taken: number;
  setAside: number;
  /** Why the round stopped before the end, if it did. */
  stopped?: string;
  retryAfterMs?: number;
  revoked?: boolean;
}

/** The code an entry is about (its User-Name as the region reads it); '' when none. */
export function codeOf(entry: JournalEntry): string {
  const name = entry.body['User-Name'] as { value?: unknown[] } | string | undefined;
  const value = typeof name === 'string' ? name : name?.value?.[0];
  return typeof value === 'string' ? normalizeCode(value) : '';
}

interface Slot {
  line: JournalLine;
  done: boolean;
}

export async function replayRound(
  journal: Journal,
  send: (entry: JournalEntry) => Promise<SendOutcome>,
  o: { parallel: number; say: (line: string) => void },
): Promise<ReplayRound> {
  const round: ReplayRound = { taken: 0, setAside: 0 };
  /** Lines read, in file order, until the cursor passes them. */
  const queue: Slot[] = [];
  const busy = new Map<string, Promise<void>>();
  let unmarked = 0;
  let lastEnd = 0;

  /** Moves the cursor past the leading lines that are done (written every 50, and at the end). */
  const advance = (force: boolean) => {
    while (queue[0]?.done) {
      lastEnd = (queue.shift() as Slot).line.end;
      unmarked += 1;
    }
    if (unmarked > 0 && (force || unmarked >= 50)) {
      journal.markTaken(lastEnd, unmarked);
      unmarked = 0;
    }
  };

  for (const line of journal.read()) {
    if (round.stopped) break;
    const slot: Slot = { line, done: false };
    queue.push(slot);
    const entry = line.entry;
    if (!entry) {
      journal.setAside(line, 'not a journal entry');
      round.setAside += 1;
      slot.done = true;
      advance(false);
      continue;
    }
    const code = codeOf(entry);
    // One code at a time, and at most `parallel` in flight.
    while (!round.stopped && (busy.has(code) || busy.size >= o.parallel)) {
      await Promise.race(busy.has(code) ? [busy.get(code)] : [...busy.values()]);
    }
    if (round.stopped) {
      queue.pop();
      break;
    }
    const flight = send(entry).then((outcome) => {
      busy.delete(code);
      if ('taken' in outcome) {
        round.taken += 1;
        slot.done = true;
      } else if ('refused' in outcome) {
        journal.setAside(line, outcome.refused);
        round.setAside += 1;
        slot.done = true;
      } else if (!round.stopped) {
        round.stopped = outcome.retry;
        if (outcome.retryAfterMs !== undefined) round.retryAfterMs = outcome.retryAfterMs;
        if (outcome.revoked) round.revoked = true;
      }
      advance(false);
    });
    busy.set(code, flight);
  }
  await Promise.all(busy.values());
  advance(true);
  if (round.stopped)
    o.say(
      `journal replay stopped: ${round.stopped}; ${journal.size} entries (${journal.pendingBytes} bytes) left, retried later`,
    );
  return round;
}
