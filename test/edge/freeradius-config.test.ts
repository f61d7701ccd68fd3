import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb-local.js';
import {
  FREERADIUS_CONFIG_DIR,
  type RunningFreeRadius,
  startFreeRadius,
} from '../../bin/local/freeradius.js';
import { issueRouterCertificate } from '../../functions/routers/ca.mjs';
import { frontTls } from '../../functions/routers/routers.js';
import { type RadiusAttributes, radclient } from '../support/radius.js';
import { type Radsecproxy, startRadsecproxy } from '../support/radsec.js';
import { TEST_SECRETS } from '../support/secrets.js';
import { eventually } from '../support/wait.js';

// The shipped configuration (deploy/freeradius), run by Debian's FreeRADIUS exactly as
// operators run it, in front of a scripted stand-in for the API's RADIUS routes: the three
// calls of a request and the client lookup of UDP routers. The RadSec files come to run.sh in its
// environment, as ECS gives them from the front's certificate secret: nothing asks the API for them.

type Route = 'client' | 'authorize' | 'post-auth' | 'accounting';
type JsonAttributes = Record<string, { type: string; value: unknown[] }>;

interface ApiCall {
  route: Route;
  headers: IncomingHttpHeaders;
  body: JsonAttributes;
}

/** What the stand-in answers: a status and JSON body, or nothing at all (a hung API). */
type Answer = { status: number; body?: unknown } | 'hang';

const API_SECRET = 'edge-test-api-secret-0123456789';
const SECRET = 'edge-test-radius-secret';
const CODE = 'K7PX2M9Q';
/** The stand-in's router CA key material (in AWS, the secret ROUTER_CA_KEY). */
// The router CA's key the functions read (test/support/secrets.ts): the front's files are issued by it.
const SEED = TEST_SECRETS.ROUTER_CA_KEY;
const ROUTER_ID = 'rtr_stubrouter01';

const ACCEPT = {
  'reply:Session-Timeout': 3600,
  'reply:Mikrotik-Rate-Limit': { value: '512k/1M', do_xlat: false },
  'control:Cleartext-Password': { op: ':=', value: CODE, do_xlat: false },
};

/** The stand-in's client definition of a UDP router at `ip` (what functions/routers answers). */
const clientOf = (ip: string, secret = SECRET, id = ROUTER_ID) => ({
  'control:FreeRADIUS-Client-IP-Address': ip,
  'control:FreeRADIUS-Client-Secret': { value: secret, do_xlat: false },
  'control:FreeRADIUS-Client-Shortname': id,
  'control:FreeRADIUS-Client-NAS-Type': 'other',
  'control:FreeRADIUS-Client-Require-MA': 'yes',
});

const defaultAnswers = (): Record<Route, (body: JsonAttributes) => Answer> => ({
  // One router, at 127.0.0.1: any other address is unknown.
  client: (body) =>
    body['Hotspot-NAS-IP']?.value[0] === '127.0.0.1'
      ? { status: 200, body: clientOf('127.0.0.1') }
      : { status: 404 },
  authorize: () => ({ status: 200, body: ACCEPT }),
  'post-auth': () => ({ status: 204 }),
  accounting: () => ({ status: 204 }),
});

let answers = defaultAnswers();
let calls: ApiCall[] = [];
/** The client lookups (kept apart: FreeRADIUS caches a client, so they come once per address). */
let lookups: ApiCall[] = [];
/** Every request the stand-in got on a path other than the four RADIUS routes. */
let strayRequests: string[] = [];
let tlsFiles: { ca_pem: string; cert_pem: string; key_pem: string };
const hanging = new Set<ServerResponse>();

function startStubApi(port = 0): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => {
      raw += d.toString('latin1');
    });
    req.on('end', () => {
      const route = /^\/api\/v1\/radius\/(client|authorize|post-auth|accounting)$/.exec(req.url ?? '')?.[1] as
        | Route
        | undefined;
      if (!route) {
        strayRequests.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.from(raw, 'latin1').toString('utf8')) as JsonAttributes;
      (route === 'client' ? lookups : calls).push({ route, headers: req.headers, body });
      const answer = answers[route](body);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer.body === undefined) res.writeHead(answer.status).end();
      else
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

function closeServer(server: Server): Promise<void> {
  for (const res of hanging) res.destroy();
  hanging.clear();
  server.closeAllConnections();
  return new Promise((done) => server.close(() => done()));
}

let api: Server;
let radius: RunningFreeRadius;

beforeAll(async () => {
  tlsFiles = await frontTls('stub-front');
  api = await startStubApi();
  // The RadSec files in run.sh's environment, as the task definition gives them (ECS secrets).
  radius = await startFreeRadius({
    apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}/`,
    apiSecret: API_SECRET,
    tls: tlsFiles,
  });
});

afterAll(async () => {
  await radius?.stop();
  if (api) await closeServer(api);
});

beforeEach(() => {
  answers = defaultAnswers();
  calls = [];
  lookups = [];
});

const target = (_server: RunningFreeRadius, port: number, timeoutS = 3) => ({
  port,
  secret: SECRET,
  timeoutS,
});
/** An Access-Request as a router sends it: with Message-Authenticator (radclient computes it). */
const auth = (attributes: RadiusAttributes, server = radius, timeoutS = 3) =>
  radclient(
    'auth',
    { 'NAS-Identifier': 'nas-edge-1', 'Message-Authenticator': '0x00', ...attributes },
    target(server, server.authPort, timeoutS),
  );
const acct = (attributes: RadiusAttributes, timeoutS = 3) =>
  radclient('acct', attributes, target(radius, radius.acctPort, timeoutS));
const pap = (password = CODE) => auth({ 'User-Name': CODE, 'User-Password': password });
/**
 * Repeats `attempt` (a RADIUS exchange, as a router resending does) until `done` holds of its
 * answer (no deadline of its own: test/support/wait.ts).
 */
const until = <T>(attempt: () => Promise<T>, done: (r: T) => boolean): Promise<T> =>
  eventually(async () => {
    const last = await attempt();
    if (!done(last)) throw new Error(`not there yet: ${JSON.stringify(last)}`);
    return last;
  }, 100);
const callsTo = (route: Route) => calls.filter((c) => c.route === route);
const value = (body: JsonAttributes | undefined, name: string) => body?.[name]?.value;

describe('the shipped FreeRADIUS configuration', () => {
  it('accepts a PAP login and passes the reply attributes the API chose through to the NAS', async () => {
    // Prepare
    answers.authorize = () => ({
      status: 200,
      body: {
        ...ACCEPT,
        'reply:Mikrotik-Total-Limit': 705032704,
        'reply:Mikrotik-Total-Limit-Gigawords': 1,
        'reply:ChilliSpot-Bandwidth-Max-Up': 512,
        'reply:WISPr-Bandwidth-Max-Down': 1_000_000,
        'reply:Acct-Interim-Interval': 300,
      },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Accept');
    expect(reply.attributes).toMatchObject({
      'Session-Timeout': ['3600'],
      'Mikrotik-Rate-Limit': ['512k/1M'],
      'Mikrotik-Total-Limit': ['705032704'],
      'Mikrotik-Total-Limit-Gigawords': ['1'],
      'ChilliSpot-Bandwidth-Max-Up': ['512'],
      'WISPr-Bandwidth-Max-Down': ['1000000'],
      'Acct-Interim-Interval': ['300'],
    });
  });

  it('signs its Access-Accept and Access-Reject with Message-Authenticator (BlastRADIUS), on this FreeRADIUS too', async () => {
    // Prepare
    answers.authorize = (body) =>
      value(body, 'User-Password')?.[0] === CODE
        ? { status: 200, body: ACCEPT }
        : { status: 401, body: { 'reply:Reply-Message': 'Code inconnu' } };

    // Act
    const accept = await pap();
    const reject = await pap('WRONGCODE');

    // Assess
    expect(accept.code).toBe('Access-Accept');
    expect(reject.code).toBe('Access-Reject');
    expect(accept.attributes['Message-Authenticator']).toHaveLength(1);
    expect(reject.attributes['Message-Authenticator']).toHaveLength(1);
  });

  it('sends the request list, the NAS source address and no password of its own to authorize', async () => {
    // Act
    await pap();

    // Assess
    const body = callsTo('authorize')[0]?.body;
    expect(value(body, 'User-Name')).toEqual([CODE]);
    expect(value(body, 'User-Password')).toEqual([CODE]);
    expect(value(body, 'NAS-Identifier')).toEqual(['nas-edge-1']);
    expect(value(body, 'Hotspot-NAS-IP')).toEqual(['127.0.0.1']);
    expect(body).not.toHaveProperty('Cleartext-Password');
  });

  it('asks authorize to record a login, and calls post-auth only when it did not', async () => {
    // Prepare: the API recorded the login in authorize (a PAP password it checked itself).
    answers.authorize = () => ({ status: 200, body: { ...ACCEPT, 'control:Hotspot-Login-Recorded': 1 } });

    // Act
    const recorded = await pap();

    // Assess
    expect(recorded.code).toBe('Access-Accept');
    expect(recorded.attributes['Session-Timeout']).toEqual(['3600']);
    expect(value(callsTo('authorize')[0]?.body, 'Hotspot-Login-At-Authorize')).toEqual([1]);
    expect(callsTo('post-auth')).toHaveLength(0);

    // Act: an answer without it (CHAP, or an API that only checked): post-auth records the login.
    answers = defaultAnswers();
    calls = [];
    const checked = await pap();

    // Assess
    expect(checked.code).toBe('Access-Accept');
    expect(callsTo('post-auth')).toHaveLength(1);
  });

  it('rejects a wrong PAP password even when the API said it recorded the login', async () => {
    // Prepare
    answers.authorize = () => ({ status: 200, body: { ...ACCEPT, 'control:Hotspot-Login-Recorded': 1 } });

    // Act
    const reply = await pap('WRONG123');

    // Assess
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes['Session-Timeout']).toBeUndefined();
  });

  it('rejects a PAP login whose password differs from the one the API returned', async () => {
    // Act
    const reply = await pap('WRONG123');

    // Assess
    expect(reply.code).toBe('Access-Reject');
  });

  it('accepts a CHAP login checked against the control:Cleartext-Password the API returned', async () => {
    // Act: radclient turns the clear password into CHAP-Password, as a MikroTik login page does.
    const reply = await auth({ 'User-Name': CODE, 'CHAP-Password': CODE });

    // Assess
    expect(reply.code).toBe('Access-Accept');
    const body = callsTo('authorize')[0]?.body;
    expect(value(body, 'CHAP-Password')?.[0]).toMatch(/^0x[0-9a-f]{34}$/);
    expect(body).not.toHaveProperty('User-Password');
  });

  it('rejects a CHAP login made with another password', async () => {
    // Act
    const reply = await auth({ 'User-Name': CODE, 'CHAP-Password': 'WRONG123' });

    // Assess
    expect(reply.code).toBe('Access-Reject');
  });

  it('rejects with the Reply-Message of a 401 from the API', async () => {
    // Prepare
    answers.authorize = () => ({
      status: 401,
      body: { 'reply:Reply-Message': { value: 'Code inconnu', do_xlat: false } },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes['Reply-Message']).toEqual(['Code inconnu']);
  });

  it('drops Session-Timeout and rate limits from a reject, even when the 401 body carried them', async () => {
    // Prepare
    answers.authorize = () => ({
      status: 401,
      body: {
        'reply:Reply-Message': { value: 'Forfait expiré', do_xlat: false },
        'reply:Session-Timeout': 3600,
        'reply:Mikrotik-Rate-Limit': { value: '512k/1M', do_xlat: false },
      },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Reject');
    // Message-Authenticator is the reply's signature (BlastRADIUS), not a grant.
    expect(Object.keys(reply.attributes).sort()).toEqual(['Message-Authenticator', 'Reply-Message']);
  });

  it('drops the Session-Timeout of an accepted code from the reject a wrong password gets', async () => {
    // Act
    const reply = await pap('WRONG123');

    // Assess
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes).not.toHaveProperty('Session-Timeout');
    expect(reply.attributes).not.toHaveProperty('Mikrotik-Rate-Limit');
  });

  it('returns a %{User-Password} sent with do_xlat false as plain text', async () => {
    // Prepare
    answers.authorize = () => ({
      status: 200,
      body: { ...ACCEPT, 'reply:Reply-Message': { value: 'Bienvenue %{User-Password}', do_xlat: false } },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.attributes['Reply-Message']).toEqual(['Bienvenue %{User-Password}']);
  });

  it('expands a value sent without do_xlat false, which is why the API must always send it', async () => {
    // Prepare
    answers.authorize = () => ({
      status: 200,
      body: { ...ACCEPT, 'reply:Reply-Message': 'Bienvenue %{User-Password}' },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.attributes['Reply-Message']).toEqual([`Bienvenue ${CODE}`]);
  });

  it('sends the bearer secret to all three routes', async () => {
    // Act
    await pap();
    await acct({ 'Acct-Status-Type': 'Start', 'User-Name': CODE, 'Acct-Session-Id': 'bearer-1' });

    // Assess
    expect(calls.map((c) => [c.route, c.headers.authorization, c.headers['x-freeradius-section']])).toEqual([
      ['authorize', `Bearer ${API_SECRET}`, 'authorize'],
      ['post-auth', `Bearer ${API_SECRET}`, 'post-auth'],
      ['accounting', `Bearer ${API_SECRET}`, 'accounting'],
    ]);
  });

  it('turns the Accept into a Reject when the post-auth call fails: a login the API did not record never gets in', async () => {
    // Prepare
    answers['post-auth'] = () => ({ status: 500, body: { error: 'down' } });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes['Session-Timeout']).toBeUndefined();
    expect(reply.attributes['Mikrotik-Rate-Limit']).toBeUndefined();
    expect(callsTo('post-auth')).toHaveLength(1);
  });

  it('turns the Accept into a Reject carrying the Reply-Message when post-auth refuses the login', async () => {
    // Prepare
    answers['post-auth'] = () => ({
      status: 200,
      body: {
        'reply:Reply-Message': { value: 'Nombre maximal', do_xlat: false },
        'control:Hotspot-Login-Refused': 1,
      },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes['Reply-Message']).toEqual(['Nombre maximal']);
    expect(reply.attributes['Session-Timeout']).toBeUndefined();
  });

  it("sends post-auth's reply attributes with the Accept, replacing authorize's", async () => {
    // Prepare
    answers['post-auth'] = () => ({
      status: 200,
      body: { 'reply:Session-Timeout': 1200, 'reply:Mikrotik-Total-Limit': 5000 },
    });

    // Act
    const reply = await pap();

    // Assess
    expect(reply.code).toBe('Access-Accept');
    expect(reply.attributes['Session-Timeout']).toEqual(['1200']);
    expect(reply.attributes['Mikrotik-Total-Limit']).toEqual(['5000']);
  });

  it('does not call post-auth for a reject', async () => {
    // Act
    await pap('WRONG123');

    // Assess
    expect(calls.map((c) => c.route)).toEqual(['authorize']);
  });

  it('sends accounting with a stable session id, 64-bit counters and the event time in epoch seconds', async () => {
    // Act
    const reply = await acct({
      'Acct-Status-Type': 'Interim-Update',
      'User-Name': CODE,
      'Acct-Session-Id': '81a00003',
      'NAS-IP-Address': '10.0.0.1',
      'NAS-Identifier': 'nas-edge-1',
      'NAS-Port': 15728643,
      'Acct-Input-Octets': 705032704,
      'Acct-Input-Gigawords': 1,
      'Acct-Output-Octets': 12345,
      'Acct-Session-Time': 600,
      'Event-Timestamp': 1_700_000_000,
    });

    // Assess
    expect(reply.code).toBe('Accounting-Response');
    const body = callsTo('accounting')[0]?.body;
    const id = createHash('md5').update(`${CODE},81a00003,10.0.0.1,nas-edge-1,,15728643`).digest('hex');
    expect(value(body, 'Acct-Unique-Session-Id')).toEqual([id]);
    expect(value(body, 'Acct-Input-Octets64')).toEqual(['5000000000']);
    expect(value(body, 'Acct-Output-Octets64')).toEqual(['12345']);
    expect(value(body, 'Hotspot-Event-Time')).toEqual([1_700_000_000]);
    expect(value(body, 'Acct-Status-Type')).toEqual(['Interim-Update']);
    expect(value(body, 'Hotspot-NAS-IP')).toEqual(['127.0.0.1']);
  });

  it('gives the same session id to a retransmission', async () => {
    // Prepare
    const packet = {
      'Acct-Status-Type': 'Stop',
      'User-Name': CODE,
      'Acct-Session-Id': '81a00004',
      'NAS-Identifier': 'nas-edge-1',
      'Acct-Input-Octets': 10,
    };

    // Act
    await acct(packet);
    await acct({ ...packet, 'Acct-Delay-Time': 5 });

    // Assess
    const [first, second] = callsTo('accounting').map((c) => value(c.body, 'Acct-Unique-Session-Id'));
    expect(first).toBeDefined();
    expect(second).toEqual(first);
  });

  it('gives no Accounting-Response when the API answers 5xx, so the NAS resends', async () => {
    // Prepare
    answers.accounting = () => ({ status: 503, body: { error: 'not stored' } });

    // Act
    const reply = await acct(
      { 'Acct-Status-Type': 'Start', 'User-Name': CODE, 'Acct-Session-Id': 'lost-1' },
      1,
    );

    // Assess
    expect(reply.code).toBe('timeout');
    expect(callsTo('accounting')).toHaveLength(1);
  });

  it('sends Accounting-On, which has no User-Name, to the API', async () => {
    // Act
    const reply = await acct({
      'Acct-Status-Type': 'Accounting-On',
      'NAS-Identifier': 'nas-edge-1',
      'NAS-IP-Address': '10.0.0.1',
      'Acct-Session-Id': '00000000',
    });

    // Assess
    expect(reply.code).toBe('Accounting-Response');
    const body = callsTo('accounting')[0]?.body;
    expect(value(body, 'Acct-Status-Type')).toEqual(['Accounting-On']);
    expect(body).not.toHaveProperty('User-Name');
    expect(value(body, 'Acct-Unique-Session-Id')?.[0]).toMatch(/^[0-9a-f]{32}$/);
  });

  it('sends a UTF-8 user name encoded twice, as rlm_rest does', async () => {
    // Prepare: the stand-in decodes the body once, as UTF-8.
    answers.authorize = () => ({ status: 401 });

    // Act
    await auth({ 'User-Name': 'josé', 'User-Password': 'x' });

    // Assess: one more latin1 -> UTF-8 step gives the name back.
    const sent = value(callsTo('authorize')[0]?.body, 'User-Name')?.[0] as string;
    expect(sent).toBe('josÃ©');
    expect(Buffer.from(sent, 'latin1').toString('utf8')).toBe('josé');
  });

  it('answers Status-Server without asking the API', async () => {
    // Act
    const reply = await radclient(
      'status',
      { 'Message-Authenticator': '0x00' },
      target(radius, radius.authPort),
    );

    // Assess
    expect(reply.code).toBe('Access-Accept');
    expect(calls).toEqual([]);
  });

  it('rejects when the API does not answer within its timeout, and answers the next request', async () => {
    // Prepare
    answers.authorize = () => 'hang';

    // Act: radclient waits 6 s, past the API's 2 s timeout: a reject is FreeRADIUS's answer to it.
    const slow = await auth({ 'User-Name': CODE, 'User-Password': CODE }, radius, 6);
    answers = defaultAnswers();
    const next = await pap();

    // Assess
    expect(slow.code).toBe('Access-Reject');
    expect(next.code).toBe('Access-Accept');
  });

  it("rejects a known router's login when nothing listens at the API address any more", async () => {
    // Prepare: the router is looked up (and cached) while the API is there, then it goes.
    const port = await freePort();
    const gone = await startStubApi(port);
    const down = await startFreeRadius({
      apiUrl: `http://127.0.0.1:${port}`,
      apiSecret: API_SECRET,
      tls: tlsFiles,
    });

    try {
      const before = await auth({ 'User-Name': CODE, 'User-Password': CODE }, down);
      await closeServer(gone);

      // Act
      const reply = await auth({ 'User-Name': CODE, 'User-Password': CODE }, down, 5);

      // Assess
      expect(before.code).toBe('Access-Accept');
      expect(reply.code).toBe('Access-Reject');
    } finally {
      await down.stop();
    }
  });

  it('answers a router it could not look up while the API was down once the API is back', async () => {
    // Prepare: an API that is down while the first login arrives: the router cannot be
    // looked up, so that packet is dropped (the router resends), not rejected.
    const port = await freePort();
    const back = await startFreeRadius({
      apiUrl: `http://127.0.0.1:${port}`,
      apiSecret: API_SECRET,
      tls: tlsFiles,
    });
    let revived: Server | undefined;

    try {
      const whileDown = await auth({ 'User-Name': CODE, 'User-Password': CODE }, back, 1);
      revived = await startStubApi(port);

      // Act: the router resends until FreeRADIUS, retrying its lookup, answers.
      const afterwards = await until(
        () => auth({ 'User-Name': CODE, 'User-Password': CODE }, back, 4),
        (r) => r.code !== 'timeout',
      );

      // Assess
      expect(whileDown.code).toBe('timeout');
      expect(afterwards.code).toBe('Access-Accept');
    } finally {
      await back.stop();
      if (revived) await closeServer(revived);
    }
  });
});

describe('routers (each with its own credentials)', () => {
  const from = (ip: string) => ({ 'Packet-Src-IP-Address': ip });

  it('defines a UDP router by asking the API once for its source address, and sends its id with every call', async () => {
    // Prepare
    answers.client = (body) =>
      body['Hotspot-NAS-IP']?.value[0] === '127.0.0.3'
        ? { status: 200, body: clientOf('127.0.0.3', 'secret-of-router-3', 'rtr_three') }
        : { status: 404 };
    const router3 = { port: radius.authPort, secret: 'secret-of-router-3', timeoutS: 3 };

    // Act
    const login = await radclient(
      'auth',
      {
        ...from('127.0.0.3'),
        'User-Name': CODE,
        'User-Password': CODE,
        'NAS-Identifier': 'nas-3',
        'Message-Authenticator': '0x00',
      },
      router3,
    );
    const report = await radclient(
      'acct',
      {
        ...from('127.0.0.3'),
        'Acct-Status-Type': 'Start',
        'User-Name': CODE,
        'Acct-Session-Id': 's3',
        'NAS-Identifier': 'nas-3',
      },
      { ...router3, port: radius.acctPort },
    );

    // Assess
    expect([login.code, report.code]).toEqual(['Access-Accept', 'Accounting-Response']);
    expect(lookups.map((l) => l.body)).toEqual([
      { 'Hotspot-NAS-IP': { type: 'string', value: ['127.0.0.3'] } },
    ]);
    expect(lookups[0]?.headers.authorization).toBe(`Bearer ${API_SECRET}`);
    expect(calls.map((c) => [c.route, value(c.body, 'Hotspot-Router-Id')])).toEqual([
      ['authorize', ['rtr_three']],
      ['post-auth', ['rtr_three']],
      ['accounting', ['rtr_three']],
    ]);
    expect(calls.every((c) => c.body['Hotspot-Router-Cert-Serial'] === undefined)).toBe(true);
  });

  it('drops, unanswered, a request from an address the API knows no router at', async () => {
    // Act
    const reply = await radclient(
      'auth',
      {
        ...from('127.0.0.4'),
        'User-Name': CODE,
        'User-Password': CODE,
        'NAS-Identifier': 'nas-edge-1',
        'Message-Authenticator': '0x00',
      },
      { port: radius.authPort, secret: SECRET, timeoutS: 1 },
    );

    // Assess
    expect(reply.code).toBe('timeout');
    expect(lookups.map((l) => value(l.body, 'Hotspot-NAS-IP'))).toEqual([['127.0.0.4']]);
    expect(calls).toEqual([]);
  });

  it('drops an Access-Request without Message-Authenticator (BlastRADIUS, CVE-2024-3596)', async () => {
    // Act
    const reply = await radclient(
      'auth',
      { 'User-Name': CODE, 'User-Password': CODE, 'NAS-Identifier': 'nas-edge-1' },
      { port: radius.authPort, secret: SECRET, timeoutS: 1 },
    );

    // Assess
    expect(reply.code).toBe('timeout');
    expect(calls).toEqual([]);
  });

  it('forgets a UDP router the API no longer knows once its client lifetime is over', async () => {
    // Prepare: a server that keeps clients 2 s (RADIUS_CLIENT_LIFETIME; at most 60 in production).
    const short = await startFreeRadius({
      apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      apiSecret: API_SECRET,
      tls: tlsFiles,
      clientLifetimeS: 2,
    });
    const login = () =>
      radclient(
        'auth',
        {
          ...from('127.0.0.5'),
          'User-Name': CODE,
          'User-Password': CODE,
          'NAS-Identifier': 'nas-5',
          'Message-Authenticator': '0x00',
        },
        { port: short.authPort, secret: 'secret-of-router-5', timeoutS: 1 },
      );
    let known = true;
    answers.client = () =>
      known
        ? { status: 200, body: clientOf('127.0.0.5', 'secret-of-router-5', 'rtr_five') }
        : { status: 404 };

    try {
      const before = await login();
      // Revoked in the API.
      known = false;

      // Act: the router keeps trying; once the client's lifetime is over FreeRADIUS asks the API
      // again, which no longer knows it.
      const after = await until(login, (r) => r.code !== 'Access-Accept');

      // Assess
      expect(before.code).toBe('Access-Accept');
      expect(after.code).toBe('timeout');
    } finally {
      await short.stop();
    }
  });

  describe("over RadSec (radclient -> radsecproxy with the router's certificate -> the TLS listener)", () => {
    let proxy: Radsecproxy | undefined;
    afterAll(async () => proxy?.stop());

    it("passes the CN and serial of the router's certificate with every call, with the files run.sh took from its environment", async () => {
      // Prepare
      const cert = await issueRouterCertificate(SEED, 'rtr_radsec01', Date.now());
      proxy = await startRadsecproxy({
        certPem: cert.certPem,
        keyPem: cert.keyPem,
        caPem: tlsFiles.ca_pem,
        serverPort: radius.tlsPort,
      });
      const via = { secret: proxy.secret, timeoutS: 5 };

      // Act
      const login = await radclient(
        'auth',
        {
          'User-Name': CODE,
          'User-Password': CODE,
          'NAS-Identifier': 'nas-edge-1',
          'Message-Authenticator': '0x00',
        },
        { ...via, port: proxy.port },
      );
      const report = await radclient(
        'acct',
        {
          'Acct-Status-Type': 'Start',
          'User-Name': CODE,
          'Acct-Session-Id': 'r1',
          'NAS-Identifier': 'nas-edge-1',
        },
        { ...via, port: proxy.port },
      );

      // Assess
      expect(strayRequests).toEqual([]);
      expect([login.code, report.code]).toEqual(['Access-Accept', 'Accounting-Response']);
      expect(
        calls.map((c) => [
          c.route,
          value(c.body, 'Hotspot-Router-Id'),
          value(c.body, 'Hotspot-Router-Cert-Serial'),
        ]),
      ).toEqual([
        ['authorize', ['rtr_radsec01'], [cert.serial]],
        ['post-auth', ['rtr_radsec01'], [cert.serial]],
        ['accounting', ['rtr_radsec01'], [cert.serial]],
      ]);
      expect(lookups).toEqual([]);
    });

    it('refuses the TLS handshake of a certificate another CA signed', async () => {
      // Prepare
      const stranger = await issueRouterCertificate(`${SEED}-another-ca`, 'rtr_radsec01', Date.now());
      const other = await startRadsecproxy({
        certPem: stranger.certPem,
        keyPem: stranger.keyPem,
        caPem: tlsFiles.ca_pem,
        serverPort: radius.tlsPort,
      });

      try {
        // Act
        const login = await radclient(
          'auth',
          {
            'User-Name': CODE,
            'User-Password': CODE,
            'NAS-Identifier': 'nas-edge-1',
            'Message-Authenticator': '0x00',
          },
          { port: other.port, secret: other.secret, timeoutS: 2 },
        );

        // Assess
        expect(login.code).toBe('timeout');
        expect(calls).toEqual([]);
      } finally {
        await other.stop();
      }
    });
  });
});

describe('run.sh', () => {
  it('refuses to start, naming each missing variable, when the environment is incomplete', () => {
    // Act
    const out = spawnSync('sh', [join(FREERADIUS_CONFIG_DIR, 'run.sh')], {
      env: { PATH: process.env.PATH, RADIUS_API_URL: 'http://127.0.0.1:1', RADIUS_AUTH_PORT: '1812' },
      encoding: 'utf8',
    });

    // Assess
    expect(out.status).toBe(64);
    for (const name of [
      'RADIUS_API_SECRET',
      'RADIUS_CLIENT_IPADDR',
      'RADIUS_LISTEN_ADDR',
      'RADIUS_ACCT_PORT',
      'RADIUS_TLS_PORT',
    ]) {
      expect(out.stderr).toContain(`${name} is not set`);
    }
    expect(out.stderr).not.toContain('RADIUS_API_URL is not set');
  });

  it('without RADIUS_API_URL, starts its service: refuses without the table or the service bundle, and gives up when the service exits before it is healthy', () => {
    // Prepare: a copy of the configuration; the service is a stand-in that exits at once.
    const work = mkdtempSync(join(tmpdir(), 'run-sh-service-'));
    const base = {
      PATH: process.env.PATH,
      RADIUS_CLIENT_IPADDR: '127.0.0.1',
      RADIUS_LISTEN_ADDR: '127.0.0.1',
      RADIUS_AUTH_PORT: '1812',
      RADIUS_ACCT_PORT: '1813',
      RADIUS_TLS_PORT: '2083',
      RADIUS_DISCONNECT: 'off',
      RADIUS_TLS_CA_PEM: tlsFiles.ca_pem,
      RADIUS_TLS_CERT_PEM: tlsFiles.cert_pem,
      RADIUS_TLS_KEY_PEM: tlsFiles.key_pem,
      RADIUS_TLS_DIR: join(work, 'tls'),
    };
    try {
      cpSync(FREERADIUS_CONFIG_DIR, work, { recursive: true });
      // Act: no bundle, no table.
      const bare = spawnSync('sh', [join(work, 'run.sh')], { env: base, encoding: 'utf8' });
      mkdirSync(join(work, 'service'));
      writeFileSync(
        join(work, 'service', 'main.mjs'),
        "console.error('stand-in: failing'); process.exit(3);\n",
      );
      const failing = spawnSync('sh', [join(work, 'run.sh')], {
        env: { ...base, TABLE_NAME: 'hotspot-test', RADIUS_SERVICE_PORT: '1' },
        encoding: 'utf8',
      });

      // Assess
      expect(bare.status).toBe(64);
      expect(bare.stderr).toContain('TABLE_NAME is not set');
      expect(bare.stderr).toContain('RADIUS_API_URL is not set and there is no');
      expect(bare.stderr).not.toContain('RADIUS_API_SECRET is not set');
      expect(failing.status).toBe(70);
      expect(failing.stderr).toContain('stand-in: failing');
      expect(failing.stderr).toContain('the service exited before it was ready');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('refuses a bearer secret that could not travel in an HTTP header untouched', () => {
    // Act
    const out = spawnSync('sh', [join(FREERADIUS_CONFIG_DIR, 'run.sh')], {
      env: {
        PATH: process.env.PATH,
        RADIUS_API_URL: 'http://127.0.0.1:1',
        RADIUS_API_SECRET: 'has spaces and %{User-Password}',
        RADIUS_TLS_PORT: '2083',
        RADIUS_CLIENT_IPADDR: '127.0.0.1',
        RADIUS_LISTEN_ADDR: '127.0.0.1',
        RADIUS_AUTH_PORT: '1812',
        RADIUS_ACCT_PORT: '1813',
      },
      encoding: 'utf8',
    });

    // Assess
    expect(out.status).toBe(64);
    expect(out.stderr).toContain('RADIUS_API_SECRET must be');
  });

  it('writes the RadSec files from its environment into RADIUS_TLS_DIR (key mode 600) and keeps the key out of FreeRADIUS', () => {
    // Assess: the server the suite runs was started with the files in its environment only.
    const dir = join(radius.runDir, 'tls');
    expect(readFileSync(join(dir, 'server.key'), 'utf8').trim()).toBe(tlsFiles.key_pem.trim());
    expect(readFileSync(join(dir, 'server.pem'), 'utf8').trim()).toBe(tlsFiles.cert_pem.trim());
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8').trim()).toBe(tlsFiles.ca_pem.trim());
    expect(statSync(join(dir, 'server.key')).mode & 0o777).toBe(0o600);
    // run.sh became FreeRADIUS (exec): the same process, whose environment has no PEM left.
    const environ = readFileSync(`/proc/${radius.pid}/environ`, 'latin1');
    expect(environ).toContain('RADIUS_TLS_DIR=');
    expect(environ).not.toContain('RADIUS_TLS_KEY_PEM');
    expect(environ).not.toContain('PRIVATE KEY');
  });

  it('refuses to start, asking nothing of the API, when no RadSec files are given or found', () => {
    // Prepare
    const empty = mkdtempSync(join(tmpdir(), 'run-sh-tls-'));
    strayRequests = [];
    const base = {
      PATH: process.env.PATH,
      RADIUS_API_URL: radius.apiUrl,
      RADIUS_API_SECRET: API_SECRET,
      RADIUS_CLIENT_IPADDR: '127.0.0.1',
      RADIUS_LISTEN_ADDR: '127.0.0.1',
      RADIUS_AUTH_PORT: '1812',
      RADIUS_ACCT_PORT: '1813',
      RADIUS_TLS_PORT: '2083',
      RADIUS_DISCONNECT: 'off',
      RADIUS_TLS_DIR: empty,
    };

    try {
      // Act
      const none = spawnSync('sh', [join(FREERADIUS_CONFIG_DIR, 'run.sh')], { env: base, encoding: 'utf8' });
      const partial = spawnSync('sh', [join(FREERADIUS_CONFIG_DIR, 'run.sh')], {
        env: { ...base, RADIUS_TLS_CERT_PEM: tlsFiles.cert_pem },
        encoding: 'utf8',
      });

      // Assess
      expect(none.status).toBe(64);
      expect(none.stderr).toContain(`no ${empty}/ca.pem`);
      expect(partial.status).toBe(64);
      expect(partial.stderr).toContain('go together');
      expect(strayRequests).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('gives FreeRADIUS 3.2.5 and later the BlastRADIUS settings, and an older one (which would refuse them) Message-Authenticator added to its replies instead', () => {
    // Prepare: stand-ins for the server, saying their version and printing what run.sh wrote.
    const work = mkdtempSync(join(tmpdir(), 'run-sh-version-'));
    const run = (version: string) => {
      const config = join(work, `config-${version}`);
      const bin = join(work, `bin-${version}`);
      cpSync(FREERADIUS_CONFIG_DIR, config, { recursive: true });
      mkdirSync(bin);
      writeFileSync(
        join(bin, 'freeradius'),
        `#!/bin/sh\nif [ "$1" = "-v" ]; then echo "radiusd: FreeRADIUS Version ${version}, for host x86_64-pc-linux-gnu"; exit 0; fi\n` +
          `cat "$3/blastradius.conf" 2>/dev/null || echo "(none)"\n` +
          `cat "$3/message-authenticator.conf" 2>/dev/null || echo "(server adds it)"\n`,
        { mode: 0o755 },
      );
      return spawnSync('sh', [join(config, 'run.sh')], {
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          RADIUS_API_URL: 'http://127.0.0.1:1',
          RADIUS_API_SECRET: API_SECRET,
          RADIUS_CLIENT_IPADDR: '127.0.0.1',
          RADIUS_LISTEN_ADDR: '127.0.0.1',
          RADIUS_AUTH_PORT: '1812',
          RADIUS_ACCT_PORT: '1813',
          RADIUS_TLS_PORT: '2083',
          RADIUS_DISCONNECT: 'off',
          RADIUS_TLS_CA_PEM: tlsFiles.ca_pem,
          RADIUS_TLS_CERT_PEM: tlsFiles.cert_pem,
          RADIUS_TLS_KEY_PEM: tlsFiles.key_pem,
        },
        encoding: 'utf8',
      });
    };

    try {
      // Act
      const outputs = Object.fromEntries(
        ['3.2.1', '3.2.4', '3.2.5', '3.2.7', '3.3.0'].map((v) => [v, run(v)]),
      );

      // Assess
      for (const v of ['3.2.5', '3.2.7', '3.3.0']) {
        expect(outputs[v]?.status, v).toBe(0);
        expect(outputs[v]?.stdout, v).toContain('require_message_authenticator = yes');
        expect(outputs[v]?.stdout, v).toContain('limit_proxy_state = yes');
        // It signs its replies itself: the configuration adds no second Message-Authenticator.
        expect(outputs[v]?.stdout, v).toContain('(server adds it)');
      }
      for (const v of ['3.2.1', '3.2.4']) {
        expect(outputs[v]?.stdout, v).toContain('(none)');
        expect(outputs[v]?.stdout, v).toContain('&Message-Authenticator := 0x00');
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
