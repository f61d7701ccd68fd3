// How a report's running totals move a session's stored ones (counter wraps and resets included).

import type { RadiusSession } from '../store/sessions.js';

/**
 * How a report's running totals move a session's stored ones (pure). A session's totals are
 * counted in segments: `base_bytes` holds the bytes of the segments before the current one, and
 * `input_bytes` / `output_bytes` the current one's, as the NAS counts them (unwrapped).
 *
 * - A report from later in the same segment (its Acct-Session-Time grew) whose octets of one
 *   direction are lower than stored came, perhaps, from a NAS that wrapped that 32-bit counter
 *   without sending Gigawords. It counts as a wrap (2^32 added) only when that is plausible:
 *   no Gigawords in it (a NAS that sends them raises them at a wrap, so its total never falls),
 *   the counter fell by more than half its range (from near 4 GiB to near 0), and the traffic
 *   the wrap implies fits the interval at MAX_BYTES_PER_S. Any other fall is a glitch: that
 *   direction keeps its stored count (nothing is added), so one bad report never ends a
 *   subscriber's data.
 * - A Start for a session that exists, or a report whose session time went backwards, with an
 *   Event-Timestamp later than the last one stored, is a new segment: the NAS reused the
 *   Acct-Session-Id (its counter reset at a reboot). What was counted stays, and the new
 *   segment's bytes count on top. Without Event-Timestamp a report going backwards cannot be
 *   told from a late one, and changes nothing.
 * - Anything else only ever raises the totals: replays, duplicates and late reports add nothing.
 */
export interface CounterReport {
  status: 'Start' | 'Interim-Update' | 'Stop';
  inputBytes: number;
  outputBytes: number;
  sessionTimeS: number;
  /** Event-Timestamp (epoch seconds), when the NAS sent one. */
  eventTime?: number;
}

export type SegmentState = Pick<
  RadiusSession,
  'total_bytes' | 'session_time_s' | 'base_bytes' | 'input_bytes' | 'output_bytes' | 'event_time'
>;

const WRAP = 2 ** 32;

/** Faster than this (1 Gbit/s in one direction) no hotspot device moves: a "wrap" implying more is a glitch. */
export const MAX_BYTES_PER_S = 125_000_000;

/**
 * The counter unwrapped: raised by the 32-bit wraps it went through since `stored` (the stored
 * count, itself unwrapped), or undefined when it fell in a way no wrap explains (see above).
 */
function unwrap(reported: number, stored: number | undefined, intervalS: number): number | undefined {
  if (stored === undefined || reported >= stored) return reported;
  // A NAS that sends Gigawords raises them at a wrap: a fall is never one of its wraps.
  if (reported >= WRAP) return undefined;
  const storedLow = stored % WRAP;
  const wraps = stored - storedLow;
  // Still in the same wrap as the stored count (which an earlier wrap took past 2^32).
  if (reported >= storedLow) return wraps + reported;
  if (storedLow - reported <= WRAP / 2) return undefined;
  const next = wraps + WRAP + reported;
  return next - stored <= MAX_BYTES_PER_S * Math.max(1, intervalS) ? next : undefined;
}

/** The stored state after this report, and whether it changed anything. */
export function advance(
  read: SegmentState,
  r: CounterReport,
): { next: SegmentState; changed: boolean; newSegment: boolean } {
  const base = read.base_bytes ?? 0;
  const later = r.eventTime !== undefined && read.event_time !== undefined && r.eventTime > read.event_time;
  const newSegment = later && (r.status === 'Start' || r.sessionTimeS < read.session_time_s);
  if (newSegment) {
    const next: SegmentState = {
      base_bytes: read.total_bytes,
      input_bytes: r.inputBytes,
      output_bytes: r.outputBytes,
      total_bytes: read.total_bytes + r.inputBytes + r.outputBytes,
      session_time_s: r.sessionTimeS,
      event_time: r.eventTime,
    };
    return { next, changed: true, newSegment: true };
  }
  // Later in the segment: its session time grew, and it is not from before the stored event (a
  // late report of an earlier segment may have a longer session time).
  const earlier = r.eventTime !== undefined && read.event_time !== undefined && r.eventTime < read.event_time;
  const inSegment = r.sessionTimeS > read.session_time_s && !earlier;
  const interval = r.sessionTimeS - read.session_time_s;
  // A fall no wrap explains keeps the direction's stored count: nothing added for it.
  const input = inSegment
    ? (unwrap(r.inputBytes, read.input_bytes, interval) ?? read.input_bytes ?? 0)
    : r.inputBytes;
  const output = inSegment
    ? (unwrap(r.outputBytes, read.output_bytes, interval) ?? read.output_bytes ?? 0)
    : r.outputBytes;
  const total = base + input + output;
  const grows = total > read.total_bytes;
  const next: SegmentState = {
    base_bytes: base,
    input_bytes: grows ? input : (read.input_bytes ?? input),
    output_bytes: grows ? output : (read.output_bytes ?? output),
    total_bytes: Math.max(total, read.total_bytes),
    session_time_s: inSegment ? r.sessionTimeS : read.session_time_s,
    event_time: Math.max(r.eventTime ?? 0, read.event_time ?? 0) || undefined,
  };
  return { next, changed: grows || inSegment, newSegment: false };
}
