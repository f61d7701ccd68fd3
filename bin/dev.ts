// `npm start`: the whole platform on this machine (DynamoDB Local, every route, jobs, stream consumers, the RADIUS front).

/**
 * `npm start`: the whole API on one port, on DynamoDB Local, as it runs in AWS, and FreeRADIUS
 * (when installed) with the shipped configuration in front of it, as it runs near the routers.
 * PORT (3000), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT (use one already running),
 * DYNAMODB_PERSIST=1 (keep data in .local/dynamodb), SMS_OUTBOX, WEBHOOK_SECRET,
 * RADIUS_AUTH_PORT (1812), RADIUS_ACCT_PORT (1813), RADIUS_TLS_PORT (2083, RadSec),
 * RADIUS_SECRET (testing123: the local demo router's own secret), RADIUS_CLIENT_LIFETIME (60),
 * RADSEC_PROXY_PORT (11812, in the printed radsecproxy example), RADIUS_SERVICE_PORT (18120: the
 * RADIUS front's service, which FreeRADIUS calls; 0 picks a free one), LOCAL_RADIUS=0 (no FreeRADIUS),
 * LOCAL_STREAMS=0 (no stream consumers: new sessions then count at their next report),
 * LOCAL_STREAM_POLL_MS (200: how often the stream consumers read the table's stream when idle).
 */
import './local/preamble.js';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  unwatchFile,
  watchFile,
  writeFileSync,
} from 'node:fs';
import { resolve } from 'node:path';
import { maskMsisdn } from '../functions/core/log.js';
import type { Credentials } from '../functions/routers/routers.js';
import { frontTls } from '../functions/routers/routers.js';
import { setNasCoa } from '../functions/store/nas.js';
import {
  CANARY_ROUTER_SOURCE,
  DEMO_ADMIN_MSISDN,
  DEMO_RADSEC_ROUTER,
  DEMO_RESELLER_ID,
  DEMO_RESELLER_MSISDN,
  DEMO_UDP_ROUTER,
  seedDemo,
  seedDemoRouters,
} from './local/demo.js';
import {
  type DynamoDbLocal,
  localClient,
  startDynamoDbLocal,
  waitForDynamo,
} from './local/dynamodb-local.js';
import { applyLocalEnv, LOCAL_DIR, LOCAL_TABLE, localSecrets } from './local/env.js';
import {
  FREERADIUS_INSTALL_HINT,
  freeRadiusAvailable,
  type RunningFreeRadius,
  startFreeRadius,
} from './local/freeradius.js';
import { startLocalJobs } from './local/jobs.js';
import { localPages } from './local/pages.js';
import { radsecproxyConf } from './local/radsecproxy.js';
import { startServer } from './local/server.js';
import { startStreamConsumers } from './local/streams.js';
import { createTable, seed } from './local/table.js';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  mkdirSync(LOCAL_DIR, { recursive: true });

  let dynamo: DynamoDbLocal | undefined;
  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (endpoint) {
    await waitForDynamo(endpoint, 5000);
  } else {
    const persist = process.env.DYNAMODB_PERSIST === '1';
    if (persist) mkdirSync(resolve(LOCAL_DIR, 'dynamodb'), { recursive: true });
    dynamo = await startDynamoDbLocal({
      port: Number(process.env.DYNAMODB_PORT ?? 8000),
      ...(persist ? { dbPath: resolve(LOCAL_DIR, 'dynamodb') } : {}),
    });
    endpoint = dynamo.endpoint;
  }

  const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  const secrets = localSecrets();
  applyLocalEnv({
    endpoint,
    tableName: process.env.TABLE_NAME ?? LOCAL_TABLE,
    publicBaseUrl,
    secrets,
  });
  // The console only says that an SMS was written (to a masked number): the code itself stays
  // in the outbox file, not in the terminal's scroll-back or a shared screen.
  const stopSmsNotices = noticeSms(process.env.SMS_OUTBOX as string);
  const client = localClient(endpoint);
  await createTable(client, process.env.TABLE_NAME ?? LOCAL_TABLE);
  client.destroy();
  await seed();
  const demo = await seedDemo();
  // LOCAL ONLY: the demo router's own secret (real routers get a generated one). The canary's
  // RADIUS check reads it from here, as it reads its router's secret in AWS.
  process.env.RADIUS_SECRET ||= 'testing123';
  // The address the routers' setup scripts (POST /api/v1/routers) point at: this FreeRADIUS.
  process.env.RADIUS_HOST ||= '127.0.0.1';
  const radsecDemo = await seedDemoRouters(demo, process.env.RADIUS_SECRET);

  const api = await startServer({ port, host, pages: localPages() });
  const radius = await startLocalRadius(secrets.RADIUS_API_SECRET, radsecDemo);
  // The demo router takes Disconnect-Requests on 127.0.0.1 (where radclient's accounting comes
  // from) at this port.
  const coaPort = Number(process.env.LOCAL_COA_PORT || 3799);
  await setNasCoa(demo.nasId, { port: coaPort });
  // The table's stream consumers (functions/streams.ts: the new sessions' counts) in a process of
  // their own, as each is a Lambda function of its own in AWS; LOCAL_STREAMS=0 leaves them off.
  const consumers = process.env.LOCAL_STREAMS === '0' ? undefined : await startStreamConsumers();
  const stopJobs = startLocalJobs({
    baseUrl: api.url,
    ...(radius.running
      ? { radius: { host: '127.0.0.1', port: radius.running.authPort, source: CANARY_ROUTER_SOURCE } }
      : {}),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    stopSmsNotices();
    await stopJobs();
    await consumers?.stop();
    await radius.running?.stop();
    await api.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const base = `http://localhost:${port}`;
  const loopback = isLoopback(host);
  process.stdout.write(
    [
      '',
      `Hotspot API listening on ${base}  (DynamoDB: ${endpoint}${dynamo ? ', started by this server' : ''})`,
      loopback
        ? `Listening on ${host} only: this machine alone can reach it (HOST=0.0.0.0 opens it to the network).`
        : `WARNING: listening on ${host} (HOST): anyone who can reach this machine can use this API, ` +
          'read any code from its sandbox and have its sandbox aggregator complete any payment.',
      ...(dynamo
        ? [
            `DynamoDB Local (port ${dynamo.port}) has no host option: it listens on every interface, ` +
              'without authentication. Firewall that port on a shared network (README, "Local mode").',
          ]
        : []),
      `SMS are written to ${process.env.SMS_OUTBOX} (the console only says to whom)`,
      '',
      'Try it:',
      `  curl -s -X POST ${base}/api/v1/auth/otp/request -H 'content-type: application/json' -d '{"msisdn":"+2250712345678"}'`,
      `  tail -n1 ${process.env.SMS_OUTBOX}    # the code`,
      `  curl -s -X POST ${base}/api/v1/auth/otp/verify -H 'content-type: application/json' -d '{"msisdn":"+2250712345678","otp":"<code>"}'`,
      `  curl -s ${base}/api/v1/forfaits`,
      '',
      `Console (resellers and operators): ${base}/console`,
      `  demo reseller: ${DEMO_RESELLER_MSISDN}   demo operator (admin): ${DEMO_ADMIN_MSISDN}`,
      `  log in with the number; the SMS code is the last line of ${process.env.SMS_OUTBOX}`,
      '',
      `Demo hotspot ${demo.nasId}: its captive portal is ${base}/portal/${demo.nasId}`,
      `  vouchers for it: ${demo.vouchers.join(', ')}`,
      '',
      ...radius.banner,
      ...(radius.running
        ? [
            `  echo 'User-Name=${demo.vouchers[0]},User-Password=${demo.vouchers[0]},NAS-Identifier=${demo.nasId},Message-Authenticator=0x00' | radclient 127.0.0.1:${radius.running.authPort} auth ${process.env.RADIUS_SECRET}`,
            ...radius.radsecBanner(demo.nasId, demo.vouchers[0] ?? 'CODE'),
            '',
            '',
            ...disconnectBanner(radius.running, demo, base, coaPort),
          ]
        : []),
      '',
      consumers
        ? `Stream consumers (new sessions' counts): process ${consumers.pid}, reading the table's stream every ${process.env.LOCAL_STREAM_POLL_MS || 200} ms.`
        : 'Stream consumers: off (LOCAL_STREAMS=0): a new session counts at its next report.',
      '',
      `Ctrl-C stops the API${radius.running ? ', FreeRADIUS' : ''}, the stream consumers and DynamoDB Local.`,
      '',
    ].join('\n'),
  );
}

/**
 * How to try the Disconnect path (RFC 5176): a fake router, a session at the demo hotspot, a
 * reseller's token, the disconnect, and where to read how it went.
 */
function disconnectBanner(
  radius: RunningFreeRadius,
  demo: { nasId: string; vouchers: string[] },
  base: string,
  coaPort: number,
): string[] {
  if (process.env.LOCAL_DISCONNECT === '0') return ['Disconnect: off (LOCAL_DISCONNECT=0).'];
  const code = demo.vouchers[1] ?? demo.vouchers[0];
  const secret = process.env.RADIUS_SECRET;
  // The session's id in the API: the Acct-Unique-Session-Id of the shipped acct_unique policy.
  const id = createHash('md5').update(`${code},demo-1,127.0.0.1,${demo.nasId},,`).digest('hex');
  return [
    `Disconnect (RFC 5176): the relay next to FreeRADIUS asks ${radius.apiUrl}/api/v1/radius/disconnects/claim every`,
    `  ${process.env.RADIUS_DISCONNECT_POLL_MS || 1000} ms and sends each request to its router; the demo router is expected on udp 127.0.0.1:${coaPort} (LOCAL_COA_PORT).`,
    `  npm run fake-nas -- --port ${coaPort} --secret ${secret}        # a router that answers Disconnect-ACK (--answer nak:506|silence)`,
    `  echo 'Acct-Status-Type=Start,User-Name=${code},Acct-Session-Id=demo-1,NAS-Identifier=${demo.nasId},NAS-IP-Address=127.0.0.1' | radclient 127.0.0.1:${radius.acctPort} acct ${secret}`,
    `  npm run admin -- accounts add --msisdn +2250700000099 --role reseller --reseller-id ${DEMO_RESELLER_ID}`,
    `  # then log in as +2250700000099 with the OTP requests above: TOKEN=<its session_token>`,
    `  curl -s -X POST ${base}/api/v1/sessions/${id}/disconnect -H "authorization: Bearer $TOKEN"`,
    `  curl -s ${base}/api/v1/sessions/${id} -H "authorization: Bearer $TOKEN"    # closed once the router ACKs; "failed" after 3 NAKs or silences`,
  ];
}

/** Whether a listen address is the loopback interface only. */
const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The `to` of an outbox line, or undefined for a line that is not one. */
function recipientOf(line: string): string | undefined {
  try {
    const to = (JSON.parse(line) as { to?: unknown }).to;
    return typeof to === 'string' ? to : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Prints "SMS to +225*****5678 written to <outbox>" for each SMS appended to the outbox from now
 * on, and never the message itself (the code). Returns the function that stops watching.
 */
function noticeSms(outbox: string): () => void {
  let offset = existsSync(outbox) ? statSync(outbox).size : 0;
  let partial = '';
  const readNew = () => {
    if (!existsSync(outbox)) return;
    const fd = openSync(outbox, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size < offset) offset = 0;
      if (size === offset) return;
      const chunk = Buffer.alloc(size - offset);
      readSync(fd, chunk, 0, chunk.length, offset);
      offset = size;
      const lines = `${partial}${chunk.toString('utf8')}`.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const to = recipientOf(line);
        if (to) process.stdout.write(`SMS to ${maskMsisdn(to)} written to ${outbox}\n`);
      }
    } finally {
      closeSync(fd);
    }
  };
  watchFile(outbox, { interval: 200 }, readNew);
  return () => unwatchFile(outbox, readNew);
}

/**
 * The RADIUS front as its task runs it: run.sh starts the front's service (the RADIUS data plane,
 * on the local table) on loopback and then FreeRADIUS on 127.0.0.1, as a router would reach it:
 * UDP for the demo router registered at 127.0.0.1, RadSec (TLS) for the demo RadSec router, whose
 * certificate and key are written to .local/radsec/ with a radsecproxy configuration to try it.
 * Not fatal when it cannot run (not installed, port taken): the API is still useful, and the
 * banner says why.
 */
async function startLocalRadius(
  apiSecret: string,
  radsecDemo: Credentials | undefined,
): Promise<{
  running?: RunningFreeRadius;
  banner: string[];
  radsecBanner: (nasId: string, code: string) => string[];
}> {
  const none = () => [];
  if (process.env.LOCAL_RADIUS === '0')
    return { banner: ['RADIUS: off (LOCAL_RADIUS=0).'], radsecBanner: none };
  if (!freeRadiusAvailable()) {
    return { banner: [`RADIUS: not started. ${FREERADIUS_INSTALL_HINT}.`], radsecBanner: none };
  }
  const secret = process.env.RADIUS_SECRET as string;
  const authPort = Number(process.env.RADIUS_AUTH_PORT || 1812);
  const acctPort = Number(process.env.RADIUS_ACCT_PORT || 1813);
  const tlsPort = Number(process.env.RADIUS_TLS_PORT || 2083);
  try {
    // The service reads and writes the table as this process does, and opens routers' secrets;
    // the secrets of the API's other routes stay here.
    const { JWT_SECRET, OTP_PEPPER, WEBHOOK_SECRET, ROUTER_CA_KEY, ...serviceEnv } = process.env;
    const servicePort = Number(process.env.RADIUS_SERVICE_PORT ?? 18120);
    const running = await startFreeRadius({
      service: {
        env: Object.fromEntries(
          Object.entries(serviceEnv).filter((e): e is [string, string] => e[1] !== undefined),
        ),
        ...(servicePort ? { port: servicePort } : {}),
      },
      apiSecret,
      authPort,
      acctPort,
      tlsPort,
      clientLifetimeS: Number(process.env.RADIUS_CLIENT_LIFETIME || 60),
      runDir: resolve(LOCAL_DIR, 'freeradius'),
      secret,
      ...(process.env.LOCAL_DISCONNECT === '0'
        ? {}
        : {
            disconnect: {
              pollMs: Number(process.env.RADIUS_DISCONNECT_POLL_MS || 1000),
              timeoutMs: Number(process.env.RADIUS_DISCONNECT_TIMEOUT_MS || 3000),
            },
          }),
      tls: await frontTls('localhost'),
    });
    const radsecDir = resolve(LOCAL_DIR, 'radsec');
    const files =
      radsecDemo?.transport === 'radsec' ? writeRadsecDemo(radsecDir, radsecDemo, tlsPort) : undefined;
    return {
      running,
      banner: [
        `RADIUS (FreeRADIUS, config deploy/freeradius): UDP auth 127.0.0.1:${authPort}, accounting 127.0.0.1:${acctPort},`,
        `  RadSec (RADIUS over TLS, RFC 6614) 127.0.0.1:${tlsPort}; it asks its service ${running.apiUrl}/api/v1/radius/*; log ${running.logFile}`,
        '  Every router has its own credentials (npm run admin -- routers ...). Message-Authenticator is required.',
        `  UDP: demo router ${DEMO_UDP_ROUTER} is registered at 127.0.0.1 with the secret ${secret} (LOCAL ONLY):`,
      ],
      radsecBanner: (nasId, code) =>
        files
          ? [
              `  RadSec: demo router ${DEMO_RADSEC_ROUTER}, its certificate ${files.cert}, key ${files.key}, router CA ${files.ca}`,
              `  (issued again at each start). As a router would, through radsecproxy (apt-get install radsecproxy):`,
              `    radsecproxy -f -c ${files.conf} &`,
              `    echo 'User-Name=${code},User-Password=${code},NAS-Identifier=${nasId},Message-Authenticator=0x00' | radclient 127.0.0.1:${files.proxyPort} auth ${files.proxySecret}`,
            ]
          : [`  RadSec: the demo router ${DEMO_RADSEC_ROUTER} is revoked: no demo certificate.`],
    };
  } catch (error) {
    return {
      banner: [`RADIUS: FreeRADIUS did not start: ${(error as Error).message.trim()}`],
      radsecBanner: none,
    };
  }
}

/**
 * The RadSec demo router's files: its certificate and key, the router CA (which also signed
 * the server's certificate), and a radsecproxy configuration that turns radclient's UDP on
 * 127.0.0.1:RADSEC_PROXY_PORT into RadSec with that certificate.
 */
function writeRadsecDemo(
  dir: string,
  creds: Extract<Credentials, { transport: 'radsec' }>,
  tlsPort: number,
): { cert: string; key: string; ca: string; conf: string; proxyPort: number; proxySecret: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cert = resolve(dir, 'router.pem');
  const key = resolve(dir, 'router.key');
  const ca = resolve(dir, 'ca.pem');
  const conf = resolve(dir, 'radsecproxy.conf');
  const proxyPort = Number(process.env.RADSEC_PROXY_PORT || 11812);
  const proxySecret = 'local-radsecproxy';
  writeFileSync(cert, creds.certificate_pem);
  writeFileSync(key, creds.private_key_pem, { mode: 0o600 });
  writeFileSync(ca, creds.ca_pem);
  writeFileSync(
    conf,
    radsecproxyConf({ listenPort: proxyPort, secret: proxySecret, ca, cert, key, serverPort: tlsPort }),
  );
  return { cert, key, ca, conf, proxyPort, proxySecret };
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  process.exit(1);
});
