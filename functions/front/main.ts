// The RADIUS front's service as its own process, which run.sh starts before FreeRADIUS.

import { log } from '../core/log.js';
import { startFrontService } from './service.js';

/**
 * The RADIUS front's service as its own process (the bundle run.sh starts before FreeRADIUS:
 * deploy/freeradius/service/main.mjs in the image). Listens on 127.0.0.1:RADIUS_SERVICE_PORT.
 * run.sh then becomes FreeRADIUS, so this process's parent is FreeRADIUS: when FreeRADIUS exits,
 * this process goes too; when this process fails, it stops FreeRADIUS, so the task is replaced
 * rather than answering every router with rejects.
 */
const port = Number(process.env.RADIUS_SERVICE_PORT || 18120);
const parent = process.ppid;

function fail(error: unknown): never {
  process.stderr.write(`radius front service: ${(error as Error).stack ?? String(error)}\n`);
  try {
    if (process.ppid === parent && parent > 1) process.kill(parent, 'SIGTERM');
  } catch {
    // the parent is gone already
  }
  process.exit(70);
}
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

const service = await startFrontService({ port }).catch(fail);
log.info('radius front service listening', { url: service.url });
process.stdout.write(`radius front service: listening on ${service.url}\n`);
// FreeRADIUS gone (this process handed to another parent): go too.
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
const stop = () => void service.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
