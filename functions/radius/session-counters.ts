import type { RadiusSession } from '../store/sessions.js';

/**
 * How a report's running totals move a session's stored ones (pure). A session's totals are
 * counted in segments: `base_bytes` holds the bytes of the segments before the current one, and
 * `input_bytes` / `output_bytes` the current one's, as the NAS counts them (unwrapped).
 *
 * - A report from later in the same segment (its Acct-Session-Time grew) whose octets of one
 *   direction are lower than stored came from a NAS that wrapped that 32-bit counter without
 *   sending Gigawords: 2^32 is added until it is not lower (a NAS reports far more often than it
 *   moves 4 GiB).
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

/** The counter raised by the 32-bit wraps it went through since `stored`. */
function unwrap(reported: number, stored: number | undefined): number {
  if (stored === undefined || reported >= stored) return reported;
  return reported + Math.ceil((stored - reported) / WRAP) * WRAP;
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
  const input = inSegment ? unwrap(r.inputBytes, read.input_bytes) : r.inputBytes;
  const output = inSegment ? unwrap(r.outputBytes, read.output_bytes) : r.outputBytes;
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
