import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLING, ESBUILD } from '../../lib/bundling.js';
import { buildChunks, CHUNK_EXTERNALS } from '../../lib/lazy-chunks.js';
import { bundle } from '../support/bundles.js';

const dir = mkdtempSync(join(tmpdir(), 'chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (path: string) => resolve(`functions/${path}.ts`);

describe('the certificate authority ships as a lazy chunk beside the bundles that issue certificates', () => {
  it('leaves the CA out of the bundle, builds it beside it, and the bundle loads it from there', async () => {
    // The router keys function (the one that signs) is the bundle that issues certificates.
    const create = await bundle(entry('routers/router-keys'), dir, 'router-keys');
    const text = readFileSync(create.file, 'utf8');
    expect(text).toContain('import("./ca.mjs")');
    // @peculiar/x509's classes are not in the bundle: its 230 KB are compiled only on issuing.
    expect(text).not.toContain('BasicConstraintsExtension');
    expect(create.minifiedBytes).toBeLessThan(350 * 1024);
    expect(existsSync(join(dir, 'ca.mjs'))).toBe(true);

    // The chunk runs on its own in a plain Node process and issues a certificate the CA signed.
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const ca = await import(${JSON.stringify(join(dir, 'ca.mjs'))});
         const issued = await ca.issueRouterCertificate('a-seed-of-32-characters-or-more!!', 'rtr_abc', Date.now());
         const { X509Certificate } = await import('node:crypto');
         const cert = new X509Certificate(issued.certPem);
         const root = new X509Certificate(await ca.caCertificatePem('a-seed-of-32-characters-or-more!!'));
         console.log(cert.subject, cert.verify(root.publicKey));`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('CN=rtr_abc true');
  });

  it('builds no chunk for a bundle that does not import one', async () => {
    const other = mkdtempSync(join(tmpdir(), 'chunks-none-'));
    try {
      await bundle(entry('billing/forfaits-list'), other, 'forfaits-list');
      // Nothing but the bundle itself: no chunk referenced, none built.
      expect(readdirSync(other)).toEqual(['forfaits-list.mjs']);
      expect(existsSync(join(other, 'ca.mjs'))).toBe(false);
      expect(existsSync(join(other, 'sns-client.mjs'))).toBe(false);
      expect(await buildChunks(other, ESBUILD)).toEqual([]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('is wired into the CDK bundling: the chunk stays external and is built after each bundle', () => {
    expect(BUNDLING.externalModules).toEqual(CHUNK_EXTERNALS);
    const commands = BUNDLING.commandHooks?.afterBundling('/in', '/asset/out') ?? [];
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/build-chunks\.ts" "\/asset\/out"$/);
  });
});

describe("the SDK's SNS client and Powertools Metrics ship as lazy chunks beside the bundles that use them", () => {
  it('leaves both out of the OTP request bundle, builds them beside it, and the SNS chunk hands out the SDK client', async () => {
    const otp = await bundle(entry('auth/otp-request'), dir, 'otp-request');
    const text = readFileSync(otp.file, 'utf8');
    expect(text).toContain('import("./sns-client.mjs")');
    // SNS's protocol and error classes are not in the bundle: they are compiled at the first SMS.
    expect(text).not.toContain('InvalidParameterException');
    expect(existsSync(join(dir, 'sns-client.mjs'))).toBe(true);
    // Powertools Metrics likewise, loaded by the first count.
    expect(text).toContain('import("./metrics-emf.mjs")');
    expect(text).not.toContain('The number of metrics recorded must be higher than zero');
    expect(existsSync(join(dir, 'metrics-emf.mjs'))).toBe(true);
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { SNSClient, PublishCommand } = await import(${JSON.stringify(join(dir, 'sns-client.mjs'))});
         console.log(typeof new SNSClient({ region: 'eu-west-1' }).send, new PublishCommand({ Message: 'x' }).input.Message);`,
      ],
      { encoding: 'utf8', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
    );
    expect(out.trim()).toBe('function x');
  });
});

describe('the RouterOS script generator ships as a lazy chunk beside the bundles that issue credentials', () => {
  it('leaves the generator out of the onboarding bundle, builds it beside it, and the chunk writes a script', async () => {
    const onboard = await bundle(entry('network/reseller-onboard'), dir, 'reseller-onboard');
    const text = readFileSync(onboard.file, 'utf8');
    expect(text).toContain('import("./routeros-script.mjs")');
    // Nor the numbering plans (libphonenumber): the reseller's number is checked by the chunk.
    expect(text).toContain('import("./phone.mjs")');
    expect(text).not.toContain('INVALID_COUNTRY');
    expect(existsSync(join(dir, 'phone.mjs'))).toBe(true);
    // The script's RouterOS lines are not in the bundle: they are compiled when a script is written.
    expect(text).not.toContain('/ip hotspot profile');
    expect(onboard.minifiedBytes).toBeLessThan(350 * 1024);
    expect(existsSync(join(dir, 'routeros-script.mjs'))).toBe(true);
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { hotspotLoginPage } = await import(${JSON.stringify(join(dir, 'routeros-script.mjs'))});
         const { servedE164 } = await import(${JSON.stringify(join(dir, 'phone.mjs'))});
         console.log(hotspotLoginPage('https://portal.example').includes('https://portal.example'), servedE164('+2250707123456'), servedE164('+33612345678'));`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('true +2250707123456 undefined');
  });
});
