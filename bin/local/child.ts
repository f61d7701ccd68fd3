// A local server's child process supervised: its output's tail kept, stopped with it.

import type { ChildProcess } from 'node:child_process';

/** A child process held by `supervise`: what it printed last (for error messages), and how to stop it. */
export interface Supervised {
  output: () => string;
  stop: () => Promise<void>;
}

/** A local server's process: `Supervised`, and its pid (the bench reads its CPU time). */
export interface LocalProcess extends Supervised {
  pid: number;
}

/**
 * A server started as a child process, held for its lifetime: the tail of what it prints (for
 * error messages), killed if this process exits first, and `stop()`: SIGTERM, SIGKILL `graceMs`
 * later (two seconds unless said) if it is still there, then `cleanup` (its folder, its log)
 * once it has exited.
 */
export function supervise(
  child: ChildProcess,
  options: { onData?: (data: Buffer) => void; cleanup?: () => Promise<void> | void; graceMs?: number } = {},
): Supervised {
  let tail = '';
  const onData = (data: Buffer) => {
    options.onData?.(data);
    tail = (tail + data.toString()).slice(-8000);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = () => {
    if (running()) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const stop = () =>
    new Promise<void>((done) => {
      process.removeListener('exit', kill);
      const finish = () => void Promise.resolve(options.cleanup?.()).then(() => done());
      if (!running()) return finish();
      child.once('exit', finish);
      child.kill('SIGTERM');
      setTimeout(kill, options.graceMs ?? 2000).unref();
    });
  return { output: () => tail, stop };
}
