import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { radclient } from '../support/radius.js';
import { type SqlRadius, startSqlRadius } from '../support/sql-radius.js';

// The bench's peer (test/support/sql-radius.ts) really is the setup it stands for: FreeRADIUS
// answering from SQLite, with one device per user and its time and data counters enforced.
// Otherwise its figures would be of a server that checks less than the project does.

const SECRET = 'sql-peer-test-secret';
let peer: SqlRadius;

beforeAll(async () => {
  peer = await startSqlRadius({
    secret: SECRET,
    users: [
      { name: 'alice', password: 'alice-pw', seconds: 3600, octets: 10 ** 9 },
      { name: 'bob', password: 'bob-pw', seconds: 600, octets: 10 ** 9 },
      { name: 'carol', password: 'carol-pw', seconds: 3600, octets: 5_000_000 },
    ],
  });
});

afterAll(async () => {
  await peer?.stop();
});

const auth = (user: string, password: string) =>
  radclient(
    'auth',
    { 'User-Name': user, 'User-Password': password },
    { port: peer.authPort, secret: SECRET },
  );
const acct = (user: string, status: string, session: string, extra: Record<string, number> = {}) =>
  radclient(
    'acct',
    {
      'User-Name': user,
      'Acct-Status-Type': status,
      'Acct-Session-Id': session,
      'NAS-IP-Address': '127.0.0.1',
      ...extra,
    },
    { port: peer.acctPort, secret: SECRET },
  );

describe('the SQL peer of the RADIUS bench', () => {
  it('accepts a user from its SQLite database, with the time it has left, and rejects a wrong password', async () => {
    const ok = await auth('alice', 'alice-pw');
    expect(ok.code).toBe('Access-Accept');
    expect(ok.attributes['Session-Timeout']).toEqual(['3600']);
    expect((await auth('alice', 'wrong')).code).toBe('Access-Reject');
  });

  it('lets one device in at a time (Simultaneous-Use := 1 against radacct)', async () => {
    expect((await acct('alice', 'Start', 'a-1')).code).toBe('Accounting-Response');
    const second = await auth('alice', 'alice-pw');
    expect(second.code).toBe('Access-Reject');
    expect(second.attributes['Reply-Message']?.[0]).toMatch(/already logged in/);
    await acct('alice', 'Stop', 'a-1', { 'Acct-Session-Time': 60 });
    expect((await auth('alice', 'alice-pw')).code).toBe('Access-Accept');
  });

  it('rejects once the time counter is used up', async () => {
    await acct('bob', 'Start', 'b-1');
    await acct('bob', 'Interim-Update', 'b-1', { 'Acct-Session-Time': 300 });
    await acct('bob', 'Stop', 'b-1', { 'Acct-Session-Time': 400 });
    const left = await auth('bob', 'bob-pw');
    expect(left.code).toBe('Access-Accept');
    expect(left.attributes['Session-Timeout']).toEqual(['200']);
    await acct('bob', 'Start', 'b-2');
    await acct('bob', 'Stop', 'b-2', { 'Acct-Session-Time': 200 });
    const spent = await auth('bob', 'bob-pw');
    expect(spent.code).toBe('Access-Reject');
    expect(spent.attributes['Reply-Message']?.[0]).toMatch(/usage time/);
  });

  it('rejects once the data counter is used up', async () => {
    await acct('carol', 'Start', 'c-1');
    await acct('carol', 'Stop', 'c-1', {
      'Acct-Session-Time': 30,
      'Acct-Input-Octets': 1_000_000,
      'Acct-Output-Octets': 3_000_000,
    });
    expect((await auth('carol', 'carol-pw')).code).toBe('Access-Accept');
    await acct('carol', 'Start', 'c-2');
    await acct('carol', 'Stop', 'c-2', { 'Acct-Session-Time': 30, 'Acct-Output-Octets': 1_000_000 });
    expect((await auth('carol', 'carol-pw')).code).toBe('Access-Reject');
  });
});
