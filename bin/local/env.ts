// The local hosts' settings and secrets, generated once into .local/ and read from there.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { resetSecrets } from '../../functions/core/secrets.js';

export const LOCAL_DIR = resolve(process.env.LOCAL_DIR ?? '.local');
export const LOCAL_TABLE = 'hotspot-local';

interface LocalSecrets {
  JWT_SECRET: string;
  OTP_PEPPER: string;
  WEBHOOK_SECRET: string;
  /** Bearer secret FreeRADIUS sends to the RADIUS routes. */
  RADIUS_API_SECRET: string;
  /** The router CA's key material (functions/routers/ca.mts). */
  ROUTER_CA_KEY: string;
  /** The key sealing routers' UDP secrets (functions/routers/secret-box.ts). */
  ROUTER_SEAL_KEY: string;
}

/**
 * Secrets of local mode: from the environment when set, else generated once into
 * `.local/secrets.json` (mode 600) so that tokens survive a restart.
 */
export function localSecrets(): LocalSecrets {
  const file = resolve(LOCAL_DIR, 'secrets.json');
  let stored: Partial<LocalSecrets> & { ROUTER_KEY_SEED?: string } = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
  // A file written before the CA and sealing keys were apart held one seed for both: it stays
  // each one's value, so the local routers' certificates and sealed secrets keep working.
  const { ROUTER_KEY_SEED: legacy, ...kept } = stored;
  stored = kept;
  const next: LocalSecrets = {
    JWT_SECRET: stored.JWT_SECRET ?? randomBytes(48).toString('base64url'),
    OTP_PEPPER: stored.OTP_PEPPER ?? randomBytes(32).toString('base64url'),
    WEBHOOK_SECRET: stored.WEBHOOK_SECRET ?? randomBytes(32).toString('base64url'),
    RADIUS_API_SECRET: stored.RADIUS_API_SECRET ?? randomBytes(32).toString('base64url'),
    ROUTER_CA_KEY: stored.ROUTER_CA_KEY ?? legacy ?? randomBytes(32).toString('base64url'),
    ROUTER_SEAL_KEY: stored.ROUTER_SEAL_KEY ?? legacy ?? randomBytes(32).toString('base64url'),
  };
  if (JSON.stringify(next) !== JSON.stringify(stored)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    JWT_SECRET: process.env.JWT_SECRET || next.JWT_SECRET,
    OTP_PEPPER: process.env.OTP_PEPPER || next.OTP_PEPPER,
    WEBHOOK_SECRET: process.env.WEBHOOK_SECRET || next.WEBHOOK_SECRET,
    RADIUS_API_SECRET: process.env.RADIUS_API_SECRET || next.RADIUS_API_SECRET,
    ROUTER_CA_KEY: process.env.ROUTER_CA_KEY || next.ROUTER_CA_KEY,
    ROUTER_SEAL_KEY: process.env.ROUTER_SEAL_KEY || next.ROUTER_SEAL_KEY,
  };
}

/** Points the functions at local resources: the env a deployed function gets from CDK, local flavour. */
export function applyLocalEnv(settings: {
  endpoint: string;
  tableName: string;
  publicBaseUrl: string;
  /** RADIUS_API_SECRET may be left out by hosts that run no FreeRADIUS (the bench). */
  secrets: Omit<LocalSecrets, 'RADIUS_API_SECRET' | 'ROUTER_CA_KEY' | 'ROUTER_SEAL_KEY'> &
    Partial<Pick<LocalSecrets, 'RADIUS_API_SECRET' | 'ROUTER_CA_KEY' | 'ROUTER_SEAL_KEY'>>;
  smsOutbox?: string;
}): void {
  Object.assign(process.env, {
    STAGE: 'local',
    AWS_REGION: process.env.AWS_REGION ?? 'local',
    TABLE_NAME: settings.tableName,
    DYNAMODB_ENDPOINT: settings.endpoint,
    // The local Java engine is slower than DynamoDB under load (functions/core/ddb.ts).
    DYNAMODB_REQUEST_TIMEOUT_MS: process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? '10000',
    DYNAMODB_CONNECT_TIMEOUT_MS: process.env.DYNAMODB_CONNECT_TIMEOUT_MS ?? '5000',
    // Every RADIUS request reads its router and NAS id (functions/radius/caller.ts): a router
    // revoked or given new credentials on one machine is refused at its next packet.
    RADIUS_ROUTER_HOLD_S: process.env.RADIUS_ROUTER_HOLD_S ?? '0',
    SMS_MODE: 'outbox',
    SMS_OUTBOX: settings.smsOutbox ?? process.env.SMS_OUTBOX ?? resolve(LOCAL_DIR, 'sms-outbox.jsonl'),
    PUBLIC_BASE_URL: settings.publicBaseUrl,
    AGGREGATOR_MODE: 'sandbox',
    // The sandbox unless the developer names a real gateway (its keys then come from the
    // environment too: CINETPAY_API_KEY, FEDAPAY_API_KEY, ...; see docs/payments.md).
    // PAYMENT_PROVIDER is the setting's deprecated name.
    PAYMENT_GATEWAY: process.env.PAYMENT_GATEWAY || process.env.PAYMENT_PROVIDER || 'sandbox',
    ...Object.fromEntries(Object.entries(settings.secrets).filter(([, v]) => v !== undefined)),
  });
  resetConfig();
  resetSecrets();
  // A client made for an earlier stack of this process (the bench runs two) points at its
  // endpoint: the next call makes one for this.
  setDdb(undefined);
}
