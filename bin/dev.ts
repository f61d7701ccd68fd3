/**
 * `npm start`: the whole API on one port, on DynamoDB Local, as it runs in AWS, and FreeRADIUS
 * (when installed) with the shipped configuration in front of it, as it runs near the routers.
 * PORT (3000), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT (use one already running),
 * DYNAMODB_PERSIST=1 (keep data in .local/dynamodb), SMS_OUTBOX, WEBHOOK_SECRET,
 * RADIUS_AUTH_PORT (1812), RADIUS_ACCT_PORT (1813), RADIUS_SECRET (testing123),
 * LOCAL_RADIUS=0 (no FreeRADIUS).
 */
import './local/preamble.js';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
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
import { startServer } from './local/server.js';
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
  process.env.SMS_ECHO = '1';
  const client = localClient(endpoint);
  await createTable(client, process.env.TABLE_NAME ?? LOCAL_TABLE);
  client.destroy();
  await seed();

  const api = await startServer({ port, host, pages: localPages() });
  const radius = await startLocalRadius(api.url, secrets.RADIUS_API_SECRET);
  const stopJobs = startLocalJobs({
    baseUrl: api.url,
    ...(radius.running ? { radius: { host: '127.0.0.1', port: radius.running.authPort } } : {}),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    await stopJobs();
    await radius.running?.stop();
    await api.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      `Hotspot API listening on ${base}  (DynamoDB: ${endpoint}${dynamo ? ', started by this server' : ''})`,
      `SMS go to the console and to ${process.env.SMS_OUTBOX}`,
      '',
      'Try it:',
      `  curl -s -X POST ${base}/api/v1/auth/otp/request -H 'content-type: application/json' -d '{"msisdn":"+2250712345678"}'`,
      `  tail -n1 ${process.env.SMS_OUTBOX}    # the code`,
      `  curl -s -X POST ${base}/api/v1/auth/otp/verify -H 'content-type: application/json' -d '{"msisdn":"+2250712345678","otp":"<code>"}'`,
      `  curl -s ${base}/api/v1/forfaits`,
      '',
      ...radius.banner,
      '',
      `Ctrl-C stops the API${radius.running ? ', FreeRADIUS' : ''} and DynamoDB Local.`,
      '',
    ].join('\n'),
  );
}

/**
 * FreeRADIUS on 127.0.0.1 in front of this API, as a router would reach it. Not fatal when it
 * cannot run (not installed, port taken): the API is still useful, and the banner says why.
 */
async function startLocalRadius(
  apiUrl: string,
  apiSecret: string,
): Promise<{ running?: RunningFreeRadius; banner: string[] }> {
  if (process.env.LOCAL_RADIUS === '0') return { banner: ['RADIUS: off (LOCAL_RADIUS=0).'] };
  if (!freeRadiusAvailable()) {
    return { banner: [`RADIUS: not started. ${FREERADIUS_INSTALL_HINT}.`] };
  }
  const secret = process.env.RADIUS_SECRET || 'testing123';
  // The canary's RADIUS check reads the shared secret from here, as it would in AWS.
  process.env.RADIUS_SECRET = secret;
  const authPort = Number(process.env.RADIUS_AUTH_PORT || 1812);
  const acctPort = Number(process.env.RADIUS_ACCT_PORT || 1813);
  try {
    const running = await startFreeRadius({
      apiUrl,
      apiSecret,
      secret,
      authPort,
      acctPort,
      runDir: resolve(LOCAL_DIR, 'freeradius'),
    });
    return {
      running,
      banner: [
        `RADIUS (FreeRADIUS, config deploy/freeradius): auth 127.0.0.1:${authPort}, accounting 127.0.0.1:${acctPort},`,
        `  client 127.0.0.1, secret ${secret}; it asks ${apiUrl}/api/v1/radius/*; log ${running.logFile}`,
        `  echo 'User-Name=CODE,User-Password=CODE,NAS-Identifier=NAS_ID' | radclient 127.0.0.1:${authPort} auth ${secret}`,
      ],
    };
  } catch (error) {
    return { banner: [`RADIUS: FreeRADIUS did not start: ${(error as Error).message.trim()}`] };
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  process.exit(1);
});
