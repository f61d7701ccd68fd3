// Device credentials: stored, read, deleted and listed by account.

import { entity, notExists } from './entity.js';

/**
 * A device credential: what lets a subscriber's phone, once it has verified an SMS code, get a
 * session again without another SMS (docs/decisions.md, "SMS per sale"). Stored by the SHA-256
 * of the secret the portal keeps, never the secret itself; bound to the account and to its token
 * version, so that a logout (which moves the version on) revokes every device too.
 */
export interface DeviceCredential {
  /** Hex SHA-256 of the secret. */
  hash: string;
  msisdn: string;
  account_id: string;
  token_version: number;
  created_at: string;
  /** Epoch ms after which the credential is refused (TTL removes it later). */
  expires_at: number;
}

export const Device = entity<DeviceCredential>('device_credential')({
  key: (d: Pick<DeviceCredential, 'hash'>) => ({ pk: `DEVICE#${d.hash}`, sk: 'DEVICE' }),
  indexes: {
    /**
     * The credentials of an account: erasing a subscriber deletes them (its number is on each).
     * Written once, with the credential; one a phone makes every month or so, a quiet key.
     */
    byAccount: { gsi: 'gsi1', pk: 'ACCOUNT#{account_id}#DEVICES', sk: '{hash}' },
  },
  ttl: (d) => Math.ceil(d.expires_at / 1000) + 86_400,
});

// Access: PutItem pk=DEVICE#<hash> attribute_not_exists(pk).
export const putDevice = (d: DeviceCredential): Promise<boolean> => Device.put(d, notExists);

// Access: GetItem pk=DEVICE#<hash> (ConsistentRead: a revoked credential is refused at once).
export const getDevice = (hash: string): Promise<DeviceCredential | undefined> =>
  Device.get({ hash }, { consistent: true });

// Access: DeleteItem pk=DEVICE#<hash>.
export const deleteDevice = (hash: string): Promise<boolean> => Device.delete({ hash });

/**
 * The credentials of an account. A credential issued before this index existed is not listed:
 * it expires within 30 days of its issue and is refused once its account is gone.
 */
// Access: Query byAccount (gsi1) gsi1pk=ACCOUNT#<account_id>#DEVICES.
export const devicesOfAccount = (accountId: string): Promise<DeviceCredential[]> =>
  Device.queryIndexAll('byAccount', { account_id: accountId });
