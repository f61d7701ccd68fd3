// The operator CLI's `edges` commands: register, show and revoke in-country edges, and issue their RadSec files.

import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { issueEdgeTls } from '../../functions/edge/edge-tls.js';
import {
  edgeOfReseller,
  getEdge,
  markEdgeRadsec,
  ResellerHasEdge,
  revokeEdge,
} from '../../functions/store/edges.js';
import { required, UsageError } from './context.js';

const USAGE =
  'edges add --reseller-id <uuid>[,<uuid>...] --address <ip>[,<ip>] [--name <name>] [--tls-out <dir>] | edges tls --edge-id <uuid> --out <dir> | edges show --edge-id <uuid> | edges revoke --edge-id <uuid>';

/** Writes an edge's RadSec files (the installer's --tls-dir) and marks it: RadSec routers' scripts list it then. */
async function writeTls(edgeId: string, dir: string): Promise<string> {
  const tls = await issueEdgeTls(edgeId, clock.now());
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'ca.pem'), tls.ca_pem);
  writeFileSync(join(dir, 'server.pem'), tls.cert_pem);
  writeFileSync(join(dir, 'server.key'), tls.key_pem, { mode: 0o600 });
  if (!(await markEdgeRadsec(edgeId))) throw new UsageError('no active edge with that id');
  return tls.not_after;
}

/**
 * In-country edges (docs/outage.md). `add` prints the edge's token once: it goes to the edge's
 * installer on standard input (kept in /etc/hotspot-edge/token), nowhere else. A reseller has one
 * edge at most. `revoke` takes effect at the edge's
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
      const registered = await registerEdge({
        name: flags.name && flags.name !== 'true' ? flags.name : 'Edge',
        reseller_ids: required(flags, 'reseller-id').split(','),
        // Where its routers reach it: their setup scripts list it first, before the region's fronts.
        addresses,
        nowIso: clock.iso(),
      }).catch(async (error: unknown) => {
        if (!(error instanceof ResellerHasEdge)) throw error;
        // One edge per reseller (docs/outage.md): two would each grant a code's whole allowance during a cut.
        const held = await Promise.all(
          error.resellerIds.map(async (r) => `${r} (edge ${await edgeOfReseller(r)})`),
        );
        throw new UsageError(
          `a reseller has one edge at most: ${held.join(', ')} already has one; revoke it first (edges revoke --edge-id <id>)`,
        );
      });
      const { edge, token } = registered;
      const { token_digest: _digest, ...shown } = edge;
      const tlsOut = flags['tls-out'];
      let tls: Record<string, unknown> = {};
      if (tlsOut && tlsOut !== 'true') {
        // The token is shown whatever happens to the files: it is never shown again.
        try {
          tls = { radsec: true, tls_dir: tlsOut, tls_not_after: await writeTls(edge.edge_id, tlsOut) };
        } catch (error) {
          tls = {
            tls_error: `${(error as Error).message}: run edges tls --edge-id ${edge.edge_id} --out <dir>`,
          };
        }
      }
      print({ ...shown, ...tls, token });
      return;
    }
    case 'tls': {
      // A new certificate (the last one ends after 825 days): the installer's --tls-dir again.
      const out = required(flags, 'out');
      const notAfter = await writeTls(required(flags, 'edge-id'), out);
      print({ tls_dir: out, tls_not_after: notAfter });
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
