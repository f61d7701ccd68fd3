// The edge's journal: accounting kept on disk (fsync'd before the answer) while the region is unreachable, replayed once it is back.

import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The edge's journal: what the region must still be told, in the order it happened (a login
 * decided here, then its session's accounting), kept as a database keeps its write-ahead log.
 *
 * - One JSON line per entry, appended and fsync'd before the router is answered: an entry the
 *   router saw acknowledged survives a crash or a power cut.
 * - A torn tail (a power cut in the middle of a write, never acknowledged) is cut off at open and
 *   kept aside in `journal.torn`, so no later entry is appended onto it.
 * - A write the disk refuses (full, or over the file size limit) is rolled back to the last whole
 *   line and reported as {@link JournalFull}: the caller does not acknowledge, the router resends.
 * - Read in pieces from a byte offset (`journal.cursor`: the first byte not taken by the region,
 *   written to a temporary file, fsync'd, renamed): memory does not grow with the file, and a
 *   restart resumes where the region stopped taking. Emptied once the region took everything.
 *
 * The region's accounting is idempotent (running totals per session id), so an entry replayed
 * twice after a crash between the send and the cursor counts once.
 */
export interface JournalEntry {
  /** The RADIUS route the body goes to: a login decided here (`authorize` for PAP, `post-auth` for CHAP), or `accounting`. */
  route: 'authorize' | 'post-auth' | 'accounting';
  /** When the edge took it (epoch ms). */
  at: number;
  body: Record<string, unknown>;
}

/** A line read back: its entry (or its raw text when it does not parse) and where it lies. */
export interface JournalLine {
  entry?: JournalEntry;
  raw?: string;
  start: number;
  end: number;
}

/** The disk refused a write (ENOSPC, EFBIG, EDQUOT): nothing of it was kept. */
export class JournalFull extends Error {
  readonly code = 'ERR_JOURNAL_FULL';
}

/**
 * The largest entry: the region refuses bodies over 64 KB, and a RADIUS packet's JSON is about
 * 750 bytes. It bounds the reader's memory: one chunk and one line.
 */
const MAX_ENTRY_BYTES = 64 * 1024;
const CHUNK = 64 * 1024;
const NL = 0x0a;
const DISK_FULL = new Set(['ENOSPC', 'EFBIG', 'EDQUOT']);

export const isDiskFull = (error: unknown): boolean =>
  DISK_FULL.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');

export class Journal {
  private readonly file: string;
  private readonly cursorFile: string;
  private readonly tornFile: string;
  private fd: number;
  /** Bytes in the file: every append ends on a line. */
  private length = 0;
  /** Byte offset of the first entry the region has not taken. */
  private taken = 0;
  /** Entries from `taken` to the end. */
  private count = 0;
  /** When the last entry was taken (epoch ms), if the journal holds one. */
  lastAt: number | undefined;

  constructor(
    dir: string,
    private readonly say: (line: string) => void = () => undefined,
  ) {
    this.file = join(dir, 'journal.jsonl');
    this.cursorFile = join(dir, 'journal.cursor');
    this.tornFile = join(dir, 'journal.torn');
    this.fd = openSync(this.file, 'a+', 0o600);
    this.length = fstatSync(this.fd).size;
    this.cutTornTail();
    this.taken = Math.min(this.readCursor(), this.length);
    this.count = this.countLines(this.taken);
    this.lastAt = this.readLastAt();
  }

  /** Entries not taken by the region yet. */
  get size(): number {
    return this.count;
  }

  /** Bytes in the file (taken entries included until it is emptied). */
  get bytes(): number {
    return this.length;
  }

  /** Bytes not taken by the region yet. */
  get pendingBytes(): number {
    return this.length - this.taken;
  }

  /** Where the entries not taken begin. */
  get cursor(): number {
    return this.taken;
  }

  /**
   * Appends an entry and returns once it is on disk. Throws {@link JournalFull} when the disk
   * refuses it, with the file as it was: a short write is cut back, never left as a torn line.
   */
  append(entry: JournalEntry): void {
    const line = Buffer.from(`${JSON.stringify(entry)}\n`);
    if (line.length > MAX_ENTRY_BYTES) throw new RangeError(`a journal entry over ${MAX_ENTRY_BYTES} bytes`);
    const before = this.length;
    try {
      writeAll(this.fd, line);
      fsyncSync(this.fd);
    } catch (error) {
      try {
        ftruncateSync(this.fd, before);
        fsyncSync(this.fd);
      } catch {
        // Truncating never needs space; if it fails too, the next open cuts the torn tail.
      }
      if (isDiskFull(error)) throw new JournalFull((error as Error).message);
      throw error;
    }
    this.length = before + line.length;
    this.count += 1;
    this.lastAt = Math.max(this.lastAt ?? 0, entry.at);
  }

  /**
   * The lines from byte `from` (the cursor by default) to the end as it is when each chunk is
   * read, so entries appended meanwhile are read too. One chunk and one line in memory.
   */
  *read(from = this.taken): Generator<JournalLine> {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let position = from;
    let carry: Buffer[] = [];
    let carried = 0;
    let lineStart = from;
    while (position < this.length) {
      const n = readSync(this.fd, chunk, 0, Math.min(CHUNK, this.length - position), position);
      if (n <= 0) break;
      let at = 0;
      while (at < n) {
        const nl = chunk.indexOf(NL, at);
        if (nl === -1 || nl >= n) {
          // Part of a line: kept until its end (a line over the limit is kept whole only to
          // its limit: it cannot be an entry, and the rest of it is skipped).
          if (carried < MAX_ENTRY_BYTES) {
            carry.push(Buffer.from(chunk.subarray(at, n)));
            carried += n - at;
          }
          break;
        }
        const piece = chunk.subarray(at, nl);
        const text = carried ? Buffer.concat([...carry, piece]).toString('utf8') : piece.toString('utf8');
        carry = [];
        carried = 0;
        const end = position + nl + 1;
        yield parse(text, lineStart, end);
        lineStart = end;
        at = nl + 1;
      }
      position += n;
    }
  }

  /** Up to `limit` entries not taken yet, oldest first (for tests and diagnostics). */
  pending(limit = 10_000): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (const line of this.read()) {
      if (line.entry) out.push(line.entry);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Records that the region took every entry before byte `offset` (`entries` of them); empties
   * the journal once it took everything. The cursor is written whole or not at all.
   */
  markTaken(offset: number, entries: number): void {
    if (offset <= this.taken) return;
    this.taken = Math.min(offset, this.length);
    this.count = Math.max(0, this.count - entries);
    if (this.taken >= this.length) {
      // Cut first, then the cursor: a crash between the two finds a cursor past the end, read as 0.
      ftruncateSync(this.fd, 0);
      fsyncSync(this.fd);
      this.length = 0;
      this.taken = 0;
      this.count = 0;
    }
    atomicWrite(this.cursorFile, `offset ${this.taken}\n`);
  }

  /** Keeps a line the region can never take (it does not parse, or the region refused it for good) aside. */
  setAside(line: JournalLine, why: string): void {
    const text = line.raw ?? JSON.stringify(line.entry);
    appendFileSync(this.tornFile, `# ${new Date().toISOString()} ${why}\n${text}\n`, { mode: 0o600 });
    this.say(`journal: bytes ${line.start}-${line.end} set aside in journal.torn (${why})`);
  }

  /** Counts the entries not taken again from the file (the count is kept in memory). */
  recount(): number {
    this.count = this.countLines(this.taken);
    return this.count;
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * A file that does not end with a newline ends with a write a power cut interrupted (never
   * acknowledged: the router resends it). It is cut at the last newline and kept aside.
   */
  private cutTornTail(): void {
    if (this.length === 0) return;
    const tail = Buffer.allocUnsafe(Math.min(CHUNK, this.length));
    let end = this.length;
    let lastNl = -1;
    while (end > 0 && lastNl === -1) {
      const start = Math.max(0, end - tail.length);
      const n = readSync(this.fd, tail, 0, end - start, start);
      const i = tail.subarray(0, n).lastIndexOf(NL);
      if (i !== -1) lastNl = start + i;
      end = start;
    }
    const keep = lastNl + 1;
    if (keep === this.length) return;
    const torn = Buffer.allocUnsafe(Math.min(this.length - keep, MAX_ENTRY_BYTES));
    const n = readSync(this.fd, torn, 0, torn.length, keep);
    appendFileSync(
      this.tornFile,
      `# ${new Date().toISOString()} torn tail of ${this.length - keep} bytes cut at open\n${torn.subarray(0, n).toString('utf8')}\n`,
      { mode: 0o600 },
    );
    ftruncateSync(this.fd, keep);
    fsyncSync(this.fd);
    this.say(`journal: a torn last line of ${this.length - keep} bytes (a write cut by a crash) set aside`);
    this.length = keep;
  }

  /** The cursor: `offset N` (a byte offset), or a bare count of entries as older edges wrote it. */
  private readCursor(): number {
    if (!existsSync(this.cursorFile)) return 0;
    const text = readFileSync(this.cursorFile, 'utf8').trim();
    const offset = /^offset (\d+)$/.exec(text)?.[1];
    if (offset !== undefined) return Number(offset);
    const entries = Number(text) || 0;
    let seen = 0;
    for (const line of this.read(0)) {
      if (seen === entries) return line.start;
      seen += 1;
    }
    return this.length;
  }

  /** Newlines from `from` to the end, read a chunk at a time. */
  private countLines(from: number): number {
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    let lines = 0;
    for (let position = from; position < this.length; ) {
      const n = readSync(this.fd, chunk, 0, Math.min(chunk.length, this.length - position), position);
      if (n <= 0) break;
      for (let i = chunk.indexOf(NL, 0); i !== -1 && i < n; i = chunk.indexOf(NL, i + 1)) lines += 1;
      position += n;
    }
    return lines;
  }

  /** The time of the last whole entry (the clock never decides before it). */
  private readLastAt(): number | undefined {
    if (this.length === 0) return undefined;
    const size = Math.min(this.length, MAX_ENTRY_BYTES + 1);
    const tail = Buffer.allocUnsafe(size);
    const n = readSync(this.fd, tail, 0, size, this.length - size);
    const text = tail.subarray(0, n - 1).toString('utf8');
    const at = parse(text.slice(text.lastIndexOf('\n') + 1), 0, 0).entry?.at;
    return typeof at === 'number' ? at : undefined;
  }
}

/** Writes all of `data`: a short write (how a full disk first shows) goes on until the error. */
function writeAll(fd: number, data: Buffer): void {
  for (let written = 0; written < data.length; ) {
    const n = writeSync(fd, data, written, data.length - written);
    if (n === 0) throw Object.assign(new Error('no space left on the device'), { code: 'ENOSPC' });
    written += n;
  }
}

function parse(text: string, start: number, end: number): JournalLine {
  try {
    const entry = JSON.parse(text) as JournalEntry;
    if (entry && typeof entry === 'object' && typeof entry.route === 'string' && entry.body)
      return { entry, start, end };
  } catch {
    // Not an entry: the caller sets it aside.
  }
  return { raw: text, start, end };
}

/**
 * Writes a file whole or not at all: a temporary file, fsync'd, renamed over it. False when the
 * disk is full (the file keeps its last version); any other failure throws.
 */
export function atomicWrite(file: string, text: string): boolean {
  const tmp = `${file}.tmp`;
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeAll(fd, Buffer.from(text));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    return true;
  } catch (error) {
    rmSync(tmp, { force: true });
    if (isDiskFull(error)) return false;
    throw error;
  }
}
