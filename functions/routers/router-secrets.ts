// The UDP routers' secrets opened for the RADIUS front only: its client lookup and its Disconnect-Requests.

import { canonicalIp } from '../core/ip.js';
import { getSecret } from '../core/secrets.js';
import { getRouterAddress, routersOfReseller } from '../store/routers.js';
import { routerDirectory } from './directory.js';
import { open } from './secret-box.js';

/**
 * The UDP routers' secrets, opened for the RADIUS front only (FreeRADIUS's client lookup, the
 * Disconnect relay's claim): apart from functions/routers/routers.ts, so that those functions
 * and every one that may cut a session carry no certificate code.
 */

/** The sealing key only: these functions cannot issue a certificate. */
const seed = () => getSecret('ROUTER_SEAL_KEY');

/**
 * FreeRADIUS's dynamic client lookup: the client definition of the active UDP router at this
 * source address (control attributes for rlm_rest), or undefined. In the RADIUS front's service
 * a memory read of its router directory (an unknown address is then looked up in the
 * background: functions/routers/directory.ts); elsewhere one GetItem. An edge is told
 * of its own resellers' routers only, always from the table: its calls are the API's (a
 * function of their own in AWS), never a front's, whose directory holds what that front serves.
 */
export async function clientAt(
  sourceIp: string,
  /** An in-country edge asks: only its resellers' routers are its clients. */
  resellers?: readonly string[],
): Promise<Record<string, unknown> | undefined> {
  const address = canonicalIp(sourceIp);
  if (!address) return undefined;
  const directory = resellers ? undefined : routerDirectory();
  const claim = directory ? directory.clientAt(address) : await getRouterAddress(address);
  // An address its reseller keeps with no router there (revoked) defines no client.
  if (!claim?.router_id || !claim.secret_box) return undefined;
  if (resellers && !resellers.includes(claim.reseller_id ?? '')) return undefined;
  const secret = open(await seed(), claim.router_id, claim.secret_box);
  if (!secret) return undefined;
  const literal = (value: string) => ({ value, do_xlat: false });
  return {
    'control:FreeRADIUS-Client-IP-Address': literal(sourceIp),
    'control:FreeRADIUS-Client-Secret': literal(secret),
    'control:FreeRADIUS-Client-Shortname': literal(claim.router_id),
    'control:FreeRADIUS-Client-NAS-Type': literal('other'),
    // BlastRADIUS (CVE-2024-3596): an Access-Request without Message-Authenticator is dropped.
    'control:FreeRADIUS-Client-Require-MA': literal('yes'),
  };
}

/**
 * The secret a Disconnect-Request (RFC 5176) to this NAS id's router is signed with: the UDP
 * secret of the reseller's active UDP router speaking for the NAS id, the one registered at
 * `host` first. Undefined when only RadSec routers speak for it (their CoA would ride their own
 * TLS connection, which the front does not originate).
 */
export async function disconnectSecretOf(
  resellerId: string,
  nasId: string,
  host: string,
): Promise<string | undefined> {
  const candidates = (await routersOfReseller(resellerId)).filter(
    (r) => r.status === 'active' && r.transport === 'udp' && r.secret_box && r.nas_ids.includes(nasId),
  );
  const at = canonicalIp(host);
  const router = candidates.find((r) => r.source_ip === at) ?? candidates[0];
  return router?.secret_box ? open(await seed(), router.router_id, router.secret_box) : undefined;
}
