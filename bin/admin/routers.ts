// The operator CLI's `routers` commands: add, list, show, revoke and rotate a reseller's routers.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Credentials } from '../../functions/routers/routers.js';
import { register, revoke, rotate, routersOf, routerView } from '../../functions/routers/routers.js';
import { getRouter } from '../../functions/store/routers.js';
import { required, UsageError } from './context.js';

const USAGE =
  'routers add --reseller-id <uuid> --nas-id <id>[,<id>...] --transport radsec|udp [--source-ip <ip>] [--name <name>] [--out <dir>] | routers list --reseller-id <uuid> | routers show --router-id <id> | routers revoke --router-id <id> | routers rotate --router-id <id> [--out <dir>]';

/**
 * Each router's own RADIUS credentials (the API's POST /api/v1/routers does the same for a
 * reseller). `add` and `rotate` show the credentials once: a UDP secret is printed, a RadSec
 * certificate, its key and the platform CA are written to `--out` (default ./router-<id>, the key
 * readable by its owner only). `revoke` takes effect at once in the API; FreeRADIUS forgets a
 * UDP router within its client lifetime (60 s at most).
 *
 * In AWS (TABLE_NAME set) the keys are read from ROUTER_CA_KEY and ROUTER_SEAL_KEY in the
 * environment (the stack's secrets: `aws secretsmanager get-secret-value --secret-id <ROUTERCAKEY arn>`,
 * `<ROUTERSEALKEY arn>`).
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case 'add': {
      const transport = required(flags, 'transport');
      if (transport !== 'radsec' && transport !== 'udp') throw new UsageError(USAGE);
      const issued = await register({
        reseller_id: required(flags, 'reseller-id'),
        name: flags.name && flags.name !== 'true' ? flags.name : 'Router',
        nas_ids: required(flags, 'nas-id').split(','),
        transport,
        ...(transport === 'udp' ? { source_ip: required(flags, 'source-ip') } : {}),
      });
      print(issued.router);
      showCredentials(issued.router.router_id, issued.credentials, flags.out);
      return;
    }
    case 'list':
      print(await routersOf(required(flags, 'reseller-id')));
      return;
    case 'show':
      print(routerView(await routerOrFail(required(flags, 'router-id'))));
      return;
    case 'revoke':
      print(await revoke(await routerOrFail(required(flags, 'router-id'))));
      return;
    case 'rotate': {
      const issued = await rotate(await routerOrFail(required(flags, 'router-id')));
      print(issued.router);
      showCredentials(issued.router.router_id, issued.credentials, flags.out);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}

async function routerOrFail(id: string) {
  const router = await getRouter(id);
  if (!router) throw new UsageError(`no router ${id}`);
  return router;
}

function showCredentials(routerId: string, c: Credentials, out: string | undefined): void {
  if (c.transport === 'udp') {
    process.stderr.write(
      `UDP secret of ${routerId} (shown once; the router must send from ${c.source_ip}): ${c.secret}\n`,
    );
    return;
  }
  const dir = resolve(out && out !== 'true' ? out : `router-${routerId}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'router.pem'), c.certificate_pem);
  writeFileSync(join(dir, 'router.key'), c.private_key_pem, { mode: 0o600 });
  chmodSync(join(dir, 'router.key'), 0o600);
  writeFileSync(join(dir, 'ca.pem'), c.ca_pem);
  process.stderr.write(
    `RadSec certificate of ${routerId} (serial ${c.serial}) written to ${dir}: router.pem, router.key (shown once), ca.pem\n`,
  );
}
