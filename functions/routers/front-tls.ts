// The RADIUS front's server certificate renewed by the stack itself, before it expires.

import { X509Certificate } from 'node:crypto';
import {
  ClusterNotFoundException,
  DescribeServicesCommand,
  ECSClient,
  ServiceNotActiveException,
  ServiceNotFoundException,
  UpdateServiceCommand,
} from '@aws-sdk/client-ecs';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

/**
 * The RADIUS front's server certificate, renewed by the stack itself.
 *
 * A scheduled function (daily, and once at every deploy before the front's service exists:
 * lib/radius-front.ts) reads the current certificate from a Secrets Manager secret of its own.
 * When there is none, it is not signed by the router CA, or less than a third of its lifetime
 * is left, it issues a new one (a fresh key, signed with ROUTER_CA_KEY), writes it to the secret,
 * and asks ECS for a new deployment of the front's service. The tasks read the secret at start
 * (ECS secrets): the deployment replaces them one at a time (`oneAtATime`: at most one task more
 * than the service runs, a new one running and healthy before an old one stops), so routers
 * reconnect to a live task and never see an expired certificate. The daily run is scheduled in
 * the cell's night (lib/radius-front.ts), when a replacement disturbs fewest routers. Nothing is fetched from the public domain: a first deploy whose DNS is
 * pointed afterwards starts as well as any.
 *
 * With a 90-day certificate and a daily run, renewal comes at 60 days, leaving 30 days of
 * failed runs (each one alarms) before it would expire in service.
 */

/** What the secret holds (JSON); the task definition picks each PEM by its key. */
interface FrontTlsFiles {
  ca_pem: string;
  cert_pem: string;
  key_pem: string;
  not_after: string;
}

export type RenewalReason = 'missing' | 'other-ca' | 'expiring' | 'fresh';

/** Renew when less than this share of the certificate's lifetime is left. */
const RENEW_WHEN_LEFT = 1 / 3;

/**
 * Whether the front's certificate must be renewed now. `current` is the secret's value as read
 * (anything: a placeholder, a broken JSON, a certificate of another CA all mean "renew").
 */
function renewalReason(current: string | undefined, caPem: string, nowMs: number): RenewalReason {
  let files: Partial<FrontTlsFiles>;
  try {
    files = JSON.parse(current ?? '') as Partial<FrontTlsFiles>;
  } catch {
    return 'missing';
  }
  if (!files || typeof files.cert_pem !== 'string' || typeof files.key_pem !== 'string') return 'missing';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(files.cert_pem);
  } catch {
    return 'missing';
  }
  // The CA certificate is rebuilt with fresh signature bytes: compare its key, not its PEM.
  if (!cert.verify(new X509Certificate(caPem).publicKey)) return 'other-ca';
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (!(to > from)) return 'missing';
  return to - nowMs < (to - from) * RENEW_WHEN_LEFT ? 'expiring' : 'fresh';
}

/** Where the rotation reads and writes, and what it rolls: AWS in a deployment, fakes in tests. */
export interface RotationTargets {
  /** The secret's current value, or undefined when it has none yet. */
  read(): Promise<string | undefined>;
  write(value: string): Promise<void>;
  /** A rolling replacement of the front's tasks; false when the service does not exist yet. */
  roll(): Promise<boolean>;
}

export interface RotationInput {
  caKey: string;
  /** The server certificate's CN. */
  name: string;
  nowMs: number;
  /** The new certificate's lifetime (default SERVER_CERT_DAYS). */
  days?: number;
}

export interface RotationResult {
  reason: RenewalReason;
  renewed: boolean;
  /** Whether a new deployment of the front's tasks was asked for. */
  rolled: boolean;
  notAfter?: string;
}

export async function rotateFrontTls(
  targets: RotationTargets,
  input: RotationInput,
): Promise<RotationResult> {
  const { caCertificatePem, issueServerCertificate } = await import('./ca.mjs');
  const caPem = await caCertificatePem(input.caKey);
  const reason = renewalReason(await targets.read(), caPem, input.nowMs);
  if (reason === 'fresh') return { reason, renewed: false, rolled: false };
  const cert = await issueServerCertificate(input.caKey, input.name, input.nowMs, input.days);
  const files: FrontTlsFiles = {
    ca_pem: caPem,
    cert_pem: cert.certPem,
    key_pem: cert.keyPem,
    not_after: cert.notAfter,
  };
  await targets.write(JSON.stringify(files));
  const rolled = await targets.roll();
  return { reason, renewed: true, rolled, notAfter: cert.notAfter };
}

/**
 * The deployment limits that replace one task at a time: ECS starts at most
 * floor(desired × maximumPercent / 100) tasks, so the smallest percent giving desired + 1, and
 * stops none before its replacement is healthy (minimum 100 %).
 */
export function oneAtATime(desired: number): { minimumHealthyPercent: number; maximumPercent: number } {
  const n = Math.max(1, desired);
  return { minimumHealthyPercent: 100, maximumPercent: Math.ceil((100 * (n + 1)) / n) };
}

/**
 * Each call is bounded (1 s to connect, 3 s for an answer, 2 attempts): at a deploy the function
 * must answer CloudFormation within its 30 s whatever AWS does, or the deploy waits an hour.
 */
const CLIENT_BOUNDS = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1000, requestTimeout: 3000, throwOnRequestTimeout: true },
};

/** Created at the first use, then kept for the container's life (region and credentials from Lambda's environment). */
let secretsManager: SecretsManagerClient | undefined;
let ecs: ECSClient | undefined;

/** The targets in AWS: the front's TLS secret, and the front's ECS service. */
export function awsTargets(settings: {
  secretArn: string;
  cluster: string;
  service: string;
}): RotationTargets {
  return {
    async read() {
      secretsManager ??= new SecretsManagerClient(CLIENT_BOUNDS);
      try {
        const answer = await secretsManager.send(new GetSecretValueCommand({ SecretId: settings.secretArn }));
        return answer.SecretString;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
    async write(value) {
      secretsManager ??= new SecretsManagerClient(CLIENT_BOUNDS);
      await secretsManager.send(
        new PutSecretValueCommand({ SecretId: settings.secretArn, SecretString: value }),
      );
    },
    async roll() {
      ecs ??= new ECSClient(CLIENT_BOUNDS);
      try {
        const { services } = await ecs.send(
          new DescribeServicesCommand({ cluster: settings.cluster, services: [settings.service] }),
        );
        const running = services?.[0];
        if (running?.status !== 'ACTIVE') return false;
        await ecs.send(
          new UpdateServiceCommand({
            cluster: settings.cluster,
            service: settings.service,
            forceNewDeployment: true,
            deploymentConfiguration: {
              ...oneAtATime(running.desiredCount ?? 0),
              // Given whole: the stack's circuit breaker stays as deployed (lib/radius-front.ts).
              deploymentCircuitBreaker: { enable: true, rollback: true },
            },
          }),
        );
        return true;
      } catch (error) {
        // At the first deploy the rotation runs before the service exists: its first tasks
        // will read the new certificate anyway.
        if (
          error instanceof ServiceNotFoundException ||
          error instanceof ServiceNotActiveException ||
          error instanceof ClusterNotFoundException
        )
          return false;
        throw error;
      }
    },
  };
}
