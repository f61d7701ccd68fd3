/**
 * A MariaDB server of its own for the MariaDB peer of the RADIUS bench (test/support/sql-radius.ts):
 * Debian's `mariadb-server`, its own data folder in a temporary folder (made by
 * `mariadb-install-db`), listening on 127.0.0.1 at a free port and on a socket in that folder,
 * started unprivileged (as the caller, or as Debian's `mysql` user when the caller is root, which
 * mariadbd refuses to run as), with the server's built-in settings (`--no-defaults`: the
 * machine's /etc/mysql is never read), and removed with its folder by `stop()`.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { supervise } from '../../bin/local/child.js';
import { freePort } from '../../bin/local/dynamodb-local.js';

export interface MariaDb {
  port: number;
  socket: string;
  /** mariadbd's pid (its CPU is the peer's too). */
  pid: number;
  /** Runs SQL as the server's root over its socket; answers what the client printed (tab-separated rows). */
  sql: (text: string, database?: string) => Promise<string>;
  output: () => string;
  stop: () => Promise<void>;
}

const INSTALL_HINT = '`sudo apt-get install -y mariadb-server` (Debian; `.ci/run` does this)';

/** The path of one of `names`, in PATH or the sbin folders Debian installs daemons in. */
function binary(...names: string[]): string {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  for (const name of names)
    for (const dir of dirs) {
      if (!dir) continue;
      const path = join(dir, name);
      if (spawnSync('test', ['-x', path]).status === 0) return path;
    }
  throw new Error(`${names[0]} was not found: ${INSTALL_HINT}`);
}

/** Who the server runs as: the caller, or `mysql` for root (mariadbd will not run as root). */
function runAs(): { uid: number; gid: number; flag: string[] } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'mysql'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0)
    throw new Error(`running as root, and there is no mysql user to run MariaDB as: ${INSTALL_HINT}`);
  return { uid, gid: id('-g'), flag: ['--user=mysql'] };
}

export async function startMariaDb(): Promise<MariaDb> {
  const server = binary('mariadbd', 'mysqld');
  const install = binary('mariadb-install-db', 'mysql_install_db');
  const client = binary('mariadb', 'mysql');
  const dir = mkdtempSync(join(tmpdir(), 'mariadb-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const as = runAs();
  if (as) for (const path of [dir, data]) chownSync(path, as.uid, as.gid);
  const installed = spawnSync(
    install,
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(as?.flag ?? []),
    ],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed:\n${installed.stdout}${installed.stderr}`);
  }
  const port = await freePort();
  const socket = join(dir, 'mysqld.sock');
  const child: ChildProcess = spawn(
    server,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      // Accounts by address, as FreeRADIUS connects (no reverse lookup of 127.0.0.1).
      '--skip-name-resolve',
      ...(as?.flag ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // SIGTERM lets InnoDB close its files; SIGKILL if it is still there after 10 s.
  const { output, stop } = supervise(child, {
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
    graceMs: 10_000,
  });
  // Ready when it says so, however long a busy machine takes, unless it exits first.
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`mariadbd exited with code ${child.exitCode}:\n${output()}`);
    }
    if (output().includes('ready for connections')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const run = promisify(execFile);
  return {
    port,
    socket,
    pid: child.pid as number,
    output,
    stop,
    sql: async (text, database) => {
      const args = ['--no-defaults', `--socket=${socket}`, '-u', 'root', '--batch', '--skip-column-names'];
      const done = run(client, database ? [...args, database] : args, { maxBuffer: 64 * 1024 * 1024 });
      done.child.stdin?.end(text);
      return (await done).stdout;
    },
  };
}
