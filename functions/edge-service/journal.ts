// The edge's journal: accounting kept on disk (fsync'd before the answer) while the region is unreachable, replayed once it is back.

import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The edge's journal: what the region must still be told, in the order it happened (a login
 * decided here, then its session's accounting). One JSON line per entry, appended and fsync'd
 * before the router is answered, so an entry the router saw acknowledged survives a crash or a
 * power cut; a torn last line (a crash mid-write) is skipped when read. Entries the region has
 * taken are counted in a cursor file (written to a temporary file, fsync'd, renamed), and the
 * journal is emptied once all are taken. The region's accounting is idempotent (running totals
 * per session id), so an entry replayed twice after a crash between the send and the cursor
 * counts once.
 */
export interface JournalEntry {
  /** The RADIUS route the body goes to: a login decided here (`authorize` for PAP, `post-auth` for CHAP), or `accounting`. */
  route: 'authorize' | 'post-auth' | 'accounting';
  /** When the edge took it (epoch ms). */
  at: number;
  body: Record<string, unknown>;
}

export class Journal {
  private readonly file: string;
  private readonly cursorFile: string;
  private fd: number;
  /** Entries in the file (taken ones included) and bytes written since it was last emptied. */
  private count = 0;
  bytes = 0;

  constructor(dir: string) {
    this.file = join(dir, 'journal.jsonl');
    this.cursorFile = join(dir, 'journal.cursor');
    this.fd = openSync(this.file, 'a');
    this.count = this.read().length;
  }

  /** Appends an entry and waits until it is on disk. */
  append(entry: JournalEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    writeSync(this.fd, line);
    fsyncSync(this.fd);
    this.count += 1;
    this.bytes += Buffer.byteLength(line);
  }

  /** Every entry of the file, oldest first (a torn last line skipped). */
  private read(): JournalEntry[] {
    if (!existsSync(this.file)) return [];
    const out: JournalEntry[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as JournalEntry);
      } catch {
        // The last line of a write a crash interrupted: never acknowledged to the router.
      }
    }
    return out;
  }

  private taken(): number {
    return existsSync(this.cursorFile) ? Number(readFileSync(this.cursorFile, 'utf8')) || 0 : 0;
  }

  /** Entries not taken yet, oldest first. */
  pending(): JournalEntry[] {
    return this.read().slice(this.taken());
  }

  get size(): number {
    return this.count - this.taken();
  }

  /** Records that `n` more entries were taken by the region; empties the journal once all are. */
  markTaken(n: number): void {
    const taken = this.taken() + n;
    if (taken >= this.count) {
      closeSync(this.fd);
      writeFileSync(this.file, '');
      this.fd = openSync(this.file, 'a');
      this.count = 0;
      this.bytes = 0;
      atomicWrite(this.cursorFile, '0');
      return;
    }
    atomicWrite(this.cursorFile, String(taken));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Writes a file whole or not at all: a temporary file, fsync'd, renamed over it. */
export function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  writeSync(fd, text);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, file);
}
