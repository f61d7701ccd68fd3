import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Debian 12 root as a fresh edge machine has it (`mmdebstrap --variant=minbase` with systemd
 * and the installer's packages), for the edge's install test. Built once and kept under
 * ~/.cache/hotspot-platform (HOTSPOT_TEST_CACHE), keyed by the installer's package list: when the
 * installer asks for other packages, a new root is built (2-3 minutes with Debian's mirror). A run
 * writes nothing to it: the root is the lower layer of an overlay mounted in a mount namespace of
 * its own, its changes in a temporary folder dropped at the end. Root is needed (mmdebstrap,
 * chroot, mount): the tests run as root or with password-less sudo (CI).
 */
const repo = fileURLToPath(new URL('../..', import.meta.url));
const BASE = ['systemd', 'systemd-sysv', 'ca-certificates', 'passwd'];
const MIRRORS = [
  'deb http://deb.debian.org/debian bookworm main',
  'deb http://deb.debian.org/debian bookworm-updates main',
  'deb http://deb.debian.org/debian-security bookworm-security main',
];

/** A command as root: itself when this process is root, else through sudo (never asking a password). */
export const asRoot = (argv: string[]): string[] =>
  process.getuid?.() === 0 ? argv : ['sudo', '-n', ...argv];

const run = (argv: string[], input?: string): string =>
  execFileSync(argv[0] as string, argv.slice(1), {
    stdio: 'pipe',
    maxBuffer: 64 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  }).toString();

/** The packages deploy/edge/install.sh installs (its `packages=` and `timesync=` lines). */
export function installerPackages(): string[] {
  const script = readFileSync(join(repo, 'deploy/edge/install.sh'), 'utf8');
  const packages = /^packages="([^"]+)"/m.exec(script)?.[1]?.split(/\s+/) ?? [];
  const timesync = /^timesync=(\S+)/m.exec(script)?.[1];
  if (!packages.length) throw new Error('deploy/edge/install.sh names no packages= line');
  return [...packages, ...(timesync ? [timesync] : [])];
}

/** The cached root for this package list, built when missing (one build at a time, across runs). */
function cachedRoot(): string {
  const packages = [...BASE, ...installerPackages()];
  const key = createHash('sha256').update(JSON.stringify({ packages, MIRRORS })).digest('hex').slice(0, 12);
  const cache = process.env.HOTSPOT_TEST_CACHE ?? join(homedir(), '.cache', 'hotspot-platform');
  const root = join(cache, `debian12-${key}`);
  if (existsSync(join(root, 'etc/debian_version'))) return root;
  mkdirSync(cache, { recursive: true });
  const build = [
    `if [ ! -e '${root}/etc/debian_version' ]; then`,
    `rm -rf '${root}.tmp' '${root}.tar' &&`,
    `mmdebstrap --quiet --variant=minbase --include=${packages.join(',')} bookworm '${root}.tar' ${MIRRORS.map((m) => `'${m}'`).join(' ')} &&`,
    `mkdir '${root}.tmp' && tar -C '${root}.tmp' -xf '${root}.tar' && rm '${root}.tar' && mv '${root}.tmp' '${root}';`,
    'fi',
  ].join(' ');
  run(asRoot(['flock', join(cache, 'debian12.lock'), 'sh', '-c', build]));
  return root;
}

export interface DebianRoot {
  /** Where the root is, inside the namespace (`run`'s and `spawnAs`'s paths are the root's own). */
  merged: string;
  /** Runs a command in the root as root (chroot), answering its output. */
  run: (argv: string[], input?: string) => string;
  /** Runs a command in the namespace but outside the root (host paths and `merged` both visible). */
  host: (argv: string[]) => string;
  /** Starts a command in the root as `user`, with exactly `env`, as systemd starts a unit's ExecStart. */
  spawnAs: (user: string, group: string, env: Record<string, string>, argv: string[]) => ChildProcess;
  close: () => Promise<void>;
}

/** A Debian 12 root for this test: the cached one under an overlay, in a mount namespace of its own. */
export async function debianRoot(): Promise<DebianRoot> {
  const lower = cachedRoot();
  const work = mkdtempSync(join(tmpdir(), 'debian12-run-'));
  const [upper, workdir, merged] = ['upper', 'work', 'root'].map((d) => join(work, d)) as [
    string,
    string,
    string,
  ];
  run(['mkdir', '-p', upper, workdir, merged]);
  const mount = [
    `mount -t overlay overlay -o 'lowerdir=${lower},upperdir=${upper},workdir=${workdir}' '${merged}'`,
    `mount -t proc proc '${merged}/proc'`,
    `cp /etc/resolv.conf '${merged}/etc/resolv.conf'`,
    'echo "ready $$"',
    'exec sleep 100000',
  ].join(' && ');
  const argv = asRoot(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', mount]);
  const holder = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = await new Promise<string>((done, fail) => {
    let out = '';
    holder.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = /ready (\d+)/.exec(out)?.[1];
      if (ready) done(ready);
    });
    holder.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    holder.once('exit', (code) => fail(new Error(`the root's namespace ended (${code}): ${out}`)));
  });
  const enter = (argv: string[]) => asRoot(['nsenter', '--target', pid, '--mount', '--', ...argv]);
  const started: ChildProcess[] = [];
  return {
    merged,
    run: (argv, input) => run(enter(['chroot', merged, ...argv]), input),
    host: (argv) => run(enter(argv)),
    spawnAs: (user, group, env, argv) => {
      const pairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      const command = enter([
        'chroot',
        `--userspec=${user}:${group}`,
        merged,
        'env',
        '-i',
        ...pairs,
        ...argv,
      ]);
      const child = spawn(command[0] as string, command.slice(1), {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: '/',
      });
      started.push(child);
      return child;
    },
    close: async () => {
      for (const child of [...started, holder]) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((r) => child.once('exit', r));
        if (process.getuid?.() === 0) child.kill('SIGKILL');
        else run(asRoot(['kill', '-KILL', String(child.pid)]));
        await exited;
      }
      // The namespace is gone with its last process, and the overlay with it.
      run(asRoot(['rm', '-rf', work]));
    },
  };
}

/** A unit file's settings as systemd reads them (User, Group, EnvironmentFile, ExecStart). */
export function unitOf(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Za-z]+)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1] as string, m[2] as string]),
  );
}

/** An EnvironmentFile's variables. */
export function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}
