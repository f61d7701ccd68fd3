import { cancelled, entity, type TxItem, transact } from './entity.js';

/**
 * A router registered to speak RADIUS for some of one reseller's NAS ids, with its own
 * credentials: a RadSec client certificate (its CN is `router_id`; only the serial of the
 * latest one issued is accepted) or, for a router with a fixed public address, a UDP secret
 * bound to that source address. FreeRADIUS authenticates the router; the API then checks the
 * NAS-Identifier it claims against `nas_ids`.
 */
export interface RouterRecord {
  router_id: string;
  reseller_id: string;
  name: string;
  /** The NAS ids this router may speak for (all of `reseller_id`). */
  nas_ids: string[];
  transport: RouterTransport;
  /** UDP: the source address its packets come from. */
  source_ip?: string;
  /** UDP: its secret, sealed (functions/routers/secret-box.ts); never returned by the API. */
  secret_box?: string;
  /** RadSec: serial (hex) of the one client certificate accepted. */
  cert_serial?: string;
  cert_not_after?: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
}

export const ROUTER_TRANSPORTS = ['radsec', 'udp'] as const;
export type RouterTransport = (typeof ROUTER_TRANSPORTS)[number];

export const Router = entity<RouterRecord>('router')({
  key: (r: Pick<RouterRecord, 'router_id'>) => ({ pk: `ROUTER#${r.router_id}`, sk: 'ROUTER' }),
  indexes: {
    /** A reseller's routers, oldest first. */
    byReseller: { gsi: 'gsi1', pk: 'RESELLER#{reseller_id}#ROUTER', sk: '{created_at}#{router_id}' },
  },
});

/**
 * The claim of a UDP source address (canonical: functions/core/ip.ts) by one reseller, and by
 * its active router there with what FreeRADIUS needs to define the client: one GetItem per
 * lookup. Created with the router; when the router is revoked the router's part goes (FreeRADIUS
 * no longer finds a client there) but the reseller keeps the address: another reseller cannot
 * register a router at an address one reseller registered, first come or not, while that
 * reseller may register a new router there. (A claim of before `reseller_id` was kept is the
 * first registrant's to take again.)
 */
export interface RouterAddress {
  source_ip: string;
  reseller_id?: string;
  router_id?: string;
  secret_box?: string;
}

export const RouterAddressClaim = entity<RouterAddress>('router_address')({
  key: (a: Pick<RouterAddress, 'source_ip'>) => ({ pk: `ROUTERIP#${a.source_ip}`, sk: 'ROUTERIP' }),
});

/**
 * Registers a router (and claims its address, for UDP). `address_taken` when the address is
 * another active router's, or another reseller's.
 */
// Access: TransactWriteItems: Put pk=ROUTER#<id> (attribute_not_exists), Put pk=ROUTERIP#<ip> (attribute_not_exists, or no router there and the same reseller's).
export async function createRouter(router: RouterRecord): Promise<'created' | 'address_taken'> {
  const items: Record<string, TxItem> = { router: Router.tx.create(router) };
  if (router.transport === 'udp' && router.source_ip && router.secret_box)
    items.address = RouterAddressClaim.tx.put(
      {
        source_ip: router.source_ip,
        reseller_id: router.reseller_id,
        router_id: router.router_id,
        secret_box: router.secret_box,
      },
      {
        expression:
          'attribute_not_exists(pk) OR (attribute_not_exists(router_id) AND (reseller_id = :r OR attribute_not_exists(reseller_id)))',
        values: { ':r': router.reseller_id },
      },
    );
  try {
    await transact(items);
    return 'created';
  } catch (error) {
    if (cancelled(error)?.failed('address')) return 'address_taken';
    throw error;
  }
}

// Access: GetItem pk=ROUTER#<id>, sk=ROUTER.
export const getRouter = (routerId: string): Promise<RouterRecord | undefined> =>
  Router.get({ router_id: routerId });

// Access: GetItem pk=ROUTERIP#<ip>, sk=ROUTERIP.
export const getRouterAddress = (sourceIp: string): Promise<RouterAddress | undefined> =>
  RouterAddressClaim.get({ source_ip: sourceIp });

// Access: Query byReseller (gsi1) gsi1pk=RESELLER#<id>#ROUTER.
export const routersOfReseller = (resellerId: string): Promise<RouterRecord[]> =>
  Router.queryIndexAll('byReseller', { reseller_id: resellerId });

/**
 * Revokes a router: its certificate and secret stop working (the API refuses it at once;
 * FreeRADIUS forgets a UDP client within its cache lifetime) and its address is freed for its
 * reseller's next router (no other reseller's). False when it was not active.
 */
// Access: TransactWriteItems: Update pk=ROUTER#<id> SET status=revoked (status = active), Update pk=ROUTERIP#<ip> REMOVE router_id, secret_box (router_id = id).
export async function revokeRouter(router: RouterRecord, nowIso: string): Promise<boolean> {
  const items: Record<string, TxItem> = {
    router: Router.tx.update(
      { router_id: router.router_id },
      {
        expression: 'SET #s = :revoked, revoked_at = :now',
        names: { '#s': 'status' },
        values: { ':revoked': 'revoked', ':now': nowIso },
      },
      { expression: '#s = :active', names: { '#s': 'status' }, values: { ':active': 'active' } },
    ),
  };
  // The router's part of its address claim goes; the reseller keeps the address.
  if (router.transport === 'udp' && router.source_ip)
    items.address = RouterAddressClaim.tx.update(
      { source_ip: router.source_ip },
      {
        expression: 'SET reseller_id = :r REMOVE router_id, secret_box',
        values: { ':r': router.reseller_id },
      },
      { expression: 'router_id = :id', values: { ':id': router.router_id } },
    );
  return transactOnRouter(items);
}

/**
 * Takes NAS ids off an active router's list (their VLAN or site was released, the router goes
 * on for its others). False when it was not active.
 */
// Access: UpdateItem pk=ROUTER#<id> SET nas_ids (condition status = active).
export const detachNasIds = (router: RouterRecord, remaining: string[]): Promise<boolean> =>
  transactOnRouter({
    router: Router.tx.update(
      { router_id: router.router_id },
      { expression: 'SET nas_ids = :rest', values: { ':rest': remaining } },
      { expression: '#s = :active', names: { '#s': 'status' }, values: { ':active': 'active' } },
    ),
  });

/**
 * New credentials for an active router: the certificate serial accepted (the previous
 * certificate is refused from now on), or the sealed UDP secret (router and address claim
 * together). False when the router is not active.
 */
// Access: TransactWriteItems: Update pk=ROUTER#<id> (status = active), Update pk=ROUTERIP#<ip> (router_id = id).
export async function replaceCredentials(
  router: RouterRecord,
  next: { cert_serial: string; cert_not_after: string } | { secret_box: string },
): Promise<boolean> {
  const active = { expression: '#s = :active', names: { '#s': 'status' }, values: { ':active': 'active' } };
  const items: Record<string, TxItem> = {};
  if ('cert_serial' in next) {
    items.router = Router.tx.update(
      { router_id: router.router_id },
      {
        expression: 'SET cert_serial = :serial, cert_not_after = :until',
        values: { ':serial': next.cert_serial, ':until': next.cert_not_after },
      },
      active,
    );
  } else {
    items.router = Router.tx.update(
      { router_id: router.router_id },
      { expression: 'SET secret_box = :box', values: { ':box': next.secret_box } },
      active,
    );
    if (router.source_ip)
      items.address = RouterAddressClaim.tx.update(
        { source_ip: router.source_ip },
        { expression: 'SET secret_box = :box', values: { ':box': next.secret_box } },
        { expression: 'router_id = :id', values: { ':id': router.router_id } },
      );
  }
  return transactOnRouter(items);
}

/** Runs a transaction on a router's items: false when the router's own condition refused it. */
async function transactOnRouter(items: Parameters<typeof transact>[0]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    if (cancelled(error)?.failed('router')) return false;
    throw error;
  }
}
