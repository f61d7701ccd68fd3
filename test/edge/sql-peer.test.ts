import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { radclient } from '../support/radius.js';
import { type SqlDatabase, type SqlRadius, startSqlRadius } from '../support/sql-radius.js';

// The bench's peers (test/support/sql-radius.ts) really are the setups they stand for: FreeRADIUS
// answering from SQLite and from MariaDB, through the stock schema and queries, with one device
// per user and its time and data counters enforced. Otherwise their figures would be of a server
// that checks less than the project does.

const SECRET = 'sql-peer-test-secret';

/** Starts the peer on `database` for the describe it is called in; the cases call the getter. */
function usePeer(database: SqlDatabase): () => SqlRadius {
  let peer: SqlRadius | undefined;
  beforeAll(async () => {
    peer = await startSqlRadius({
      secret: SECRET,
      database,
      users: [
        { name: 'alice', password: 'alice-pw', seconds: 3600, octets: 10 ** 9 },
        { name: 'bob', password: 'bob-pw', seconds: 600, octets: 10 ** 9 },
        { name: 'carol', password: 'carol-pw', seconds: 3600, octets: 5_000_000 },
        { name: 'dave', password: 'dave-pw', seconds: 3600, octets: 10 ** 9 },
      ],
    });
  });
  afterAll(async () => {
    await peer?.stop();
  });
  return () => {
    if (!peer) throw new Error('the peer did not start');
    return peer;
  };
}

const auth = (peer: SqlRadius, user: string, password: string) =>
  radclient(
    'auth',
    { 'User-Name': user, 'User-Password': password },
    { port: peer.authPort, secret: SECRET },
  );
const acct = (
  peer: SqlRadius,
  user: string,
  status: string,
  session: string,
  extra: Record<string, number> = {},
) =>
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

/** What both peers do: FreeRADIUS's stock SQL setup, with the counters and one device per user. */
function checksAsTheProjectDoes(of: () => SqlRadius): void {
  it('accepts a user from its database, with the time it has left, and rejects a wrong password', async () => {
    const ok = await auth(of(), 'alice', 'alice-pw');
    expect(ok.code).toBe('Access-Accept');
    expect(ok.attributes['Session-Timeout']).toEqual(['3600']);
    expect((await auth(of(), 'alice', 'wrong')).code).toBe('Access-Reject');
  });

  it('lets one device in at a time (Simultaneous-Use := 1 against radacct)', async () => {
    expect((await acct(of(), 'alice', 'Start', 'a-1')).code).toBe('Accounting-Response');
    const second = await auth(of(), 'alice', 'alice-pw');
    expect(second.code).toBe('Access-Reject');
    expect(second.attributes['Reply-Message']?.[0]).toMatch(/already logged in/);
    await acct(of(), 'alice', 'Stop', 'a-1', { 'Acct-Session-Time': 60 });
    expect((await auth(of(), 'alice', 'alice-pw')).code).toBe('Access-Accept');
  });

  it('rejects once the time counter is used up', async () => {
    await acct(of(), 'bob', 'Start', 'b-1');
    await acct(of(), 'bob', 'Interim-Update', 'b-1', { 'Acct-Session-Time': 300 });
    await acct(of(), 'bob', 'Stop', 'b-1', { 'Acct-Session-Time': 400 });
    const left = await auth(of(), 'bob', 'bob-pw');
    expect(left.code).toBe('Access-Accept');
    expect(left.attributes['Session-Timeout']).toEqual(['200']);
    await acct(of(), 'bob', 'Start', 'b-2');
    await acct(of(), 'bob', 'Stop', 'b-2', { 'Acct-Session-Time': 200 });
    const spent = await auth(of(), 'bob', 'bob-pw');
    expect(spent.code).toBe('Access-Reject');
    expect(spent.attributes['Reply-Message']?.[0]).toMatch(/usage time/);
  });

  it('rejects once the data counter is used up', async () => {
    await acct(of(), 'carol', 'Start', 'c-1');
    await acct(of(), 'carol', 'Stop', 'c-1', {
      'Acct-Session-Time': 30,
      'Acct-Input-Octets': 1_000_000,
      'Acct-Output-Octets': 3_000_000,
    });
    expect((await auth(of(), 'carol', 'carol-pw')).code).toBe('Access-Accept');
    await acct(of(), 'carol', 'Start', 'c-2');
    await acct(of(), 'carol', 'Stop', 'c-2', { 'Acct-Session-Time': 30, 'Acct-Output-Octets': 1_000_000 });
    expect((await auth(of(), 'carol', 'carol-pw')).code).toBe('Access-Reject');
  });
}

describe('the SQLite peer of the RADIUS bench', () => {
  checksAsTheProjectDoes(usePeer('sqlite'));
});

describe('the MariaDB peer of the RADIUS bench (its own server, started by the peer)', () => {
  const peer = usePeer('mariadb');
  checksAsTheProjectDoes(peer);

  it("keeps a session's accounting in the stock radacct row, and each login in radpostauth", async () => {
    const sql = (text: string) => (peer().sql as (text: string) => Promise<string>)(text);
    const row = async () =>
      (
        await sql(
          "SELECT acctsessionid, acctsessiontime, acctinputoctets, acctoutputoctets, acctstoptime IS NULL FROM radacct WHERE username = 'dave'",
        )
      ).trim();

    expect((await auth(peer(), 'dave', 'dave-pw')).code).toBe('Access-Accept');
    await acct(peer(), 'dave', 'Start', 'd-1');
    await acct(peer(), 'dave', 'Interim-Update', 'd-1', {
      'Acct-Session-Time': 300,
      'Acct-Input-Octets': 1000,
      'Acct-Output-Octets': 9000,
    });
    expect(await row()).toBe('d-1\t300\t1000\t9000\t1');

    await acct(peer(), 'dave', 'Stop', 'd-1', {
      'Acct-Session-Time': 420,
      'Acct-Input-Octets': 2000,
      'Acct-Output-Octets': 18000,
    });
    expect(await row()).toBe('d-1\t420\t2000\t18000\t0');
    expect((await sql("SELECT reply FROM radpostauth WHERE username = 'dave'")).trim()).toBe('Access-Accept');
  });
});
