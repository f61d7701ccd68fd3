import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { getEdge, revokeEdge } from '../../functions/store/edges.js';
import { required, UsageError } from './context.js';

const USAGE =
  'edges add --reseller-id <uuid>[,<uuid>...] [--name <name>] | edges show --edge-id <uuid> | edges revoke --edge-id <uuid>';

/**
 * In-country edges (docs/outage.md). `add` prints the edge's token once: it goes into the edge's
 * /etc/hotspot-edge/edge.env as EDGE_TOKEN, nowhere else. `revoke` takes effect at the edge's
 * next request (its replica and its forwarded RADIUS calls are refused).
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case 'add': {
      const { edge, token } = await registerEdge({
        name: flags.name && flags.name !== 'true' ? flags.name : 'Edge',
        reseller_ids: required(flags, 'reseller-id').split(','),
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
