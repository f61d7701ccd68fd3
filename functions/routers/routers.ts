// Routers: registered (RadSec or UDP), listed, revoked and given new credentials, and their view.

import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { assertActsFor, assertSeesRouter } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, validation } from '../core/errors.js';
import { canonicalIp } from '../core/ip.js';
import type { Principal } from '../core/principal.js';
import { getSecret } from '../core/secrets.js';
import { getNas } from '../store/nas.js';
import {
  createRouter,
  getRouter,
  type RouterRecord,
  type RouterTransport,
  replaceCredentials,
  revokeRouter,
  routersOfReseller,
} from '../store/routers.js';
import { routerKeys } from './keys-client.js';
import { newSecret } from './secret-box.js';
import { routerSettings } from './settings.js';

/**
 * Routers: each speaks RADIUS with its own credentials, for NAS ids of its reseller only.
 * - RadSec (RFC 6614, TCP 2083): a client certificate from the platform's CA, CN = router id.
 *   Only the latest certificate issued to a router is accepted (its serial is stored).
 * - UDP: a secret of its own, bound to the source address it sends from.
 * The private key and the secret are returned once, when issued, and never again.
 */

export interface RegisterInput {
  reseller_id: string;
  name: string;
  nas_ids: string[];
  transport: RouterTransport;
  source_ip?: string;
}

export type Credentials =
  | { transport: 'udp'; secret: string; source_ip: string }
  | { transport: 'radsec'; certificate_pem: string; private_key_pem: string; ca_pem: string; serial: string };

/**
 * What a router's own traffic says of it: `never_seen` before any request of it reached the API
 * (whatever its status), `online` when heard within ROUTER_SILENT_AFTER_MIN, else `silent`
 * (since `last_heard_at`).
 */
export type RouterState = 'never_seen' | 'online' | 'silent';

function routerState(r: Pick<RouterRecord, 'last_heard_at'>, nowMs: number): RouterState {
  if (!r.last_heard_at) return 'never_seen';
  const silentAfterMs = routerSettings().ROUTER_SILENT_AFTER_MIN * 60_000;
  return Date.parse(r.last_heard_at) > nowMs - silentAfterMs ? 'online' : 'silent';
}

/** A router as the API shows it: never its sealed secret; its state from its traffic. */
export type RouterView = Omit<RouterRecord, 'secret_box' | 'silent_alert_id' | 'changed_at'> & {
  state: RouterState;
};
export const routerView = ({
  secret_box: _box,
  silent_alert_id: _alert,
  changed_at: _changed,
  ...view
}: RouterRecord): RouterView => ({
  ...view,
  state: routerState(view, clock.now()),
});

/** The CA's key: read here for the local front's files only (`frontTls`), never by a route. */
const caKey = () => getSecret('ROUTER_CA_KEY');

/**
 * The CA (@peculiar/x509 and its ASN.1 stack, about 230 KB), loaded when the local front's
 * certificate is issued. In the deployed bundles it is a file of its own (lib/lazy-chunks.ts).
 */
const certificates = () => import('./ca.mjs');

/** `rtr_` and 12 characters of [a-z0-9]: a certificate CN and a FreeRADIUS shortname as is. */
export function newRouterId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `rtr_${[...randomBytes(12)].map((b) => alphabet[b % 36]).join('')}`;
}

/**
 * A unicast address in its one canonical spelling (functions/core/ip.ts: an IPv4-mapped IPv6
 * address is the IPv4 address, IPv6 lower case and compressed), as FreeRADIUS writes the source
 * of a packet: two spellings of one address are one claim.
 */
export function sourceAddress(ip: string | undefined): string {
  const address = canonicalIp(ip);
  if (!address)
    throw validation('source_ip must be the IPv4 or IPv6 address the router sends from', [
      { path: 'body.source_ip', message: 'an IP address' },
    ]);
  if (
    isIP(address) === 4 &&
    (address === '0.0.0.0' || address === '255.255.255.255' || /^(22[4-9]|23\d)\./.test(address))
  )
    throw validation('source_ip must be a unicast address', [{ path: 'body.source_ip', message: 'unicast' }]);
  if (address === '::' || /^ff/.test(address))
    throw validation('source_ip must be a unicast address', [{ path: 'body.source_ip', message: 'unicast' }]);
  return address;
}

/** Every NAS id must be a hotspot of the reseller (the same answer whether it is another's or none). */
async function checkNasIds(resellerId: string, nasIds: string[]): Promise<string[]> {
  const unique = [...new Set(nasIds)];
  const found = await Promise.all(unique.map(getNas));
  const bad = unique.filter((_, i) => found[i]?.reseller_id !== resellerId);
  if (bad.length)
    throw validation(`Every NAS id must be a hotspot of this reseller (not: ${bad.join(', ')})`, [
      { path: 'body.nas_ids', message: `not a hotspot of this reseller: ${bad.join(', ')}` },
    ]);
  return unique;
}

/** What is stored of new credentials, and what is given to the owner once. */
interface Issue {
  stored: { secret_box: string } | { cert_serial: string; cert_not_after: string };
  credentials: Credentials;
}

/**
 * A UDP router's secret is sealed, a RadSec router's certificate signed, by the router keys
 * (functions/routers/router-keys.ts): this function never reads either key.
 */
async function issue(router: RouterRecord, secret?: string): Promise<Issue> {
  if (router.transport === 'udp') {
    const value = secret ?? newSecret();
    return {
      stored: { secret_box: await routerKeys.seal(router.router_id, value) },
      credentials: { transport: 'udp', secret: value, source_ip: router.source_ip as string },
    };
  }
  const cert = await routerKeys.certificate(router.router_id);
  return {
    stored: { cert_serial: cert.serial, cert_not_after: cert.not_after },
    credentials: {
      transport: 'radsec',
      certificate_pem: cert.certificate_pem,
      private_key_pem: cert.private_key_pem,
      ca_pem: cert.ca_pem,
      serial: cert.serial,
    },
  };
}

/**
 * Registers a router (operator CLI, demo: no principal check; `routerId` and `secret` let the
 * local demo keep fixed ones). Answers it with its credentials, which are not kept in clear.
 */
export async function register(
  input: RegisterInput,
  options: { routerId?: string; secret?: string } = {},
): Promise<{ router: RouterView; credentials: Credentials }> {
  const nasIds = await checkNasIds(input.reseller_id, input.nas_ids);
  const base: RouterRecord = {
    router_id: options.routerId ?? newRouterId(),
    reseller_id: input.reseller_id,
    name: input.name,
    nas_ids: nasIds,
    transport: input.transport,
    status: 'active',
    created_at: clock.iso(),
    ...(input.transport === 'udp' ? { source_ip: sourceAddress(input.source_ip) } : {}),
  };
  const { stored, credentials } = await issue(base, options.secret);
  const router: RouterRecord = { ...base, ...stored };
  if ((await createRouter(router)) === 'address_taken')
    throw new AppError(
      'ERR_CONFLICT',
      `${router.source_ip} is another router's, or another reseller's address (a revoked router's address stays its reseller's)`,
    );
  return { router: routerView(router), credentials };
}

/** POST /routers: the owning reseller or an admin. */
export async function registerFor(principal: Principal, input: RegisterInput) {
  assertActsFor(principal, input.reseller_id);
  return register(input);
}

/** A reseller's routers; the caller's scope is decided by resellerInScope (functions/core/access.ts). */
export async function routersOf(resellerId: string): Promise<RouterView[]> {
  return (await routersOfReseller(resellerId)).map(routerView);
}

export async function routerFor(principal: Principal, routerId: string): Promise<RouterRecord> {
  const router = await getRouter(routerId);
  assertSeesRouter(principal, router);
  return router;
}

/** Revokes a router's credentials (idempotent: an already revoked router is answered as is). */
export async function revoke(router: RouterRecord): Promise<RouterView> {
  const nowIso = clock.iso();
  if (router.status === 'active' && (await revokeRouter(router, nowIso)))
    return routerView({ ...router, status: 'revoked', revoked_at: nowIso });
  return routerView((await getRouter(router.router_id)) ?? router);
}

/** New credentials for an active router; the previous certificate or secret stops working. */
export async function rotate(
  router: RouterRecord,
  options: { secret?: string } = {},
): Promise<{ router: RouterView; credentials: Credentials }> {
  if (router.status !== 'active') throw new AppError('ERR_CONFLICT', 'This router is revoked');
  const { stored, credentials } = await issue(router, options.secret);
  if (!(await replaceCredentials(router, stored)))
    throw new AppError('ERR_CONFLICT', 'This router is revoked');
  return { router: routerView({ ...router, ...stored }), credentials };
}

/**
 * The RADIUS front's RadSec files (the router CA, a server certificate and its key), issued in
 * process for local mode and the bench; in AWS the stack's rotation issues them into a secret
 * (functions/routers/front-tls.ts). No route hands them out.
 */
async function frontTlsOf(s: string, name: string, nowMs: number) {
  const { caCertificatePem, issueServerCertificate } = await certificates();
  const cert = await issueServerCertificate(s, name, nowMs);
  return { ca_pem: await caCertificatePem(s), cert_pem: cert.certPem, key_pem: cert.keyPem };
}

export const frontTls = async (name: string) => frontTlsOf(await caKey(), name, clock.now());
