// The operator CLI's `edges` commands: register, show and revoke in-country edges.

import { isIP } from 'node:net';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { getEdge, revokeEdge } from '../../functions/store/edges.js';
import { required, UsageError } from './context.js';

const USAGE =
  'edges add --reseller-id <uuid>[,<uuid>...] --address <ip>[,<ip>] [--name <name>] | edges show --edge-id <uuid> | edges revoke --edge-id <uuid>';

/**
 * In-country edges (docs/outage.md). `add` prints the edge's token once: it goes into the edge's
 * /etc/hotspot-edge/edge.env as EDGE_TOKEN, nowhere else. `revoke` takes effect at the edge's
 * next request (its replica and its forwarded RADIUS calls are refused).
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case 'add': {
      const addresses = required(flags, 'address')
        .split(',')
        .map((a) => a.trim());
      const bad = addresses.find((a) => !isIP(a));
      if (bad !== undefined) throw new UsageError(`--address must be IP addresses: ${bad}`);
      const { edge, token } = await registerEdge({
        name: flags.name && flags.name !== 'true' ? flags.name : 'Edge',
        reseller_ids: required(flags, 'reseller-id').split(','),
        // Where its routers reach it: their setup scripts list it after the region's front.
        addresses,
        nowIso: clock.iso(),
      });
      const { token_digest: _digest, ...shown } = edge;
      print({ ...shown, token });
      return;
    }
    case 'show': {
      const edge = await getEdge(required(flags, 'edge-id'));
      if (!edge) throw new UsageError('no such edge');
      const { token_digest: _digest, ...shown } = edge;
      print(shown);
      return;
    }
    case 'revoke':
      if (!(await revokeEdge(required(flags, 'edge-id'), clock.iso()))) throw new UsageError('no such edge');
      print({ revoked: true });
      return;
    default:
      throw new UsageError(USAGE);
  }
}
