// The edge's own time for its offline decisions: monotonic within a run, trusted once not earlier than seen.

/**
 * The edge's time for the decisions it makes itself (docs/outage.md, "Time"). A mini PC at a
 * reseller's may have no clock battery: rebooted during a cut, it can start with a clock hours or
 * years behind, and a code's time left and a device's lease would be reckoned from it.
 *
 * - Within a run the time is monotonic: an anchor taken from the wall clock, advanced by the
 *   process's monotonic clock. A clock set back while the edge runs is not followed, so a lease
 *   lasts its length whatever happens to the wall clock.
 * - It follows the wall clock forward when it jumps ahead (a time sync correcting a clock that
 *   was behind, the case at boot without a battery).
 * - It is trusted only once it is not earlier than the latest time the edge has already seen
 *   (its replica's, its journal's last entry, its own last decision): until then the edge makes
 *   no offline decision (see `behindBy`).
 */
export interface TimeSource {
  /** The wall clock (epoch ms). */
  wall: () => number;
  /** A monotonic clock (ms from any origin). */
  mono: () => number;
}

export const systemTime: TimeSource = { wall: () => Date.now(), mono: () => performance.now() };

/** A jump of the wall clock ahead of the monotonic time larger than this is followed (a time sync). */
const FOLLOW_MS = 2000;

export class EdgeClock {
  private anchorWall: number;
  private anchorMono: number;
  private seen = 0;

  constructor(private readonly source: TimeSource = systemTime) {
    this.anchorWall = source.wall();
    this.anchorMono = source.mono();
  }

  /** Now (epoch ms): monotonic within the run, following the wall clock forward only. */
  now(): number {
    const mono = this.anchorWall + (this.source.mono() - this.anchorMono);
    const wall = this.source.wall();
    if (wall > mono + FOLLOW_MS) {
      this.anchorWall = wall;
      this.anchorMono = this.source.mono();
      return wall;
    }
    return mono;
  }

  /** Records a time the edge has seen (a replica made, a journal entry, a decision). */
  see(ms: number | undefined): void {
    if (ms !== undefined && Number.isFinite(ms) && ms > this.seen) this.seen = ms;
  }

  /** The latest time seen (epoch ms, 0 when none). */
  get latestSeen(): number {
    return this.seen;
  }

  /** How far `now` is earlier than the latest time seen (0 when it is not). */
  behindBy(now: number): number {
    return Math.max(0, this.seen - now);
  }
}
