// The RADIUS front's certificate rotation as a Lambda handler: at deploy and on a schedule.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { clock } from '../core/clock.js';
import { log } from '../core/log.js';
import { getSecret } from '../core/secrets.js';
import { awsTargets, type RotationResult, type RotationTargets, rotateFrontTls } from './front-tls.js';

/**
 * The RADIUS front's certificate rotation (functions/routers/front-tls.ts), invoked two ways by
 * the stack (lib/radius-front.ts):
 * - daily by an EventBridge schedule: renews when due and rolls the front's tasks;
 * - as a CloudFormation custom resource at every deploy, before the front's service: the first
 *   deploy's tasks find a certificate in the secret at their start. It answers CloudFormation
 *   itself (the presigned ResponseURL), so no custom-resource framework function is needed.
 *
 * Environment: ROUTER_CA_KEY_ARN (the CA's key, this function's only secret), FRONT_TLS_SECRET_ARN
 * (the secret it writes, which the tasks read), FRONT_CLUSTER and FRONT_SERVICE (the ECS service
 * it rolls), FRONT_TLS_NAME (the certificate's CN), FRONT_TLS_DAYS (optional lifetime).
 */

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
}

const isCustomResource = (event: unknown): event is CustomResourceEvent =>
  typeof event === 'object' && event !== null && 'RequestType' in event && 'ResponseURL' in event;

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

/** One rotation with the function's settings; `targets` replaces AWS in tests. */
export async function rotateNow(targets?: RotationTargets): Promise<RotationResult> {
  const days = process.env.FRONT_TLS_DAYS ? Number(process.env.FRONT_TLS_DAYS) : undefined;
  const result = await rotateFrontTls(
    targets ??
      awsTargets({
        secretArn: required('FRONT_TLS_SECRET_ARN'),
        cluster: required('FRONT_CLUSTER'),
        service: required('FRONT_SERVICE'),
      }),
    {
      caKey: await getSecret('ROUTER_CA_KEY'),
      name: process.env.FRONT_TLS_NAME || 'hotspot-radius-front',
      nowMs: clock.now(),
      ...(days && Number.isFinite(days) && days > 0 ? { days } : {}),
    },
  );
  log.info('front certificate rotation', { ...result });
  return result;
}

/** CloudFormation's answer: a PUT of the outcome to the presigned URL it gave. */
function answer(event: CustomResourceEvent, status: 'SUCCESS' | 'FAILED', reason?: string): Promise<void> {
  const body = JSON.stringify({
    Status: status,
    Reason: reason ?? status,
    PhysicalResourceId: event.PhysicalResourceId ?? 'front-tls',
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  return new Promise((resolve, reject) => {
    const url = new URL(event.ResponseURL);
    const req = (url.protocol === 'http:' ? httpRequest : httpsRequest)(
      url,
      { method: 'PUT', headers: { 'content-type': '', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function handler(event: unknown): Promise<RotationResult | undefined> {
  if (!isCustomResource(event)) return rotateNow();
  if (event.RequestType === 'Delete') {
    await answer(event, 'SUCCESS');
    return undefined;
  }
  try {
    const result = await rotateNow();
    await answer(event, 'SUCCESS');
    return result;
  } catch (error) {
    // A failed answer would leave CloudFormation waiting an hour: every failure is answered.
    log.error('front certificate rotation failed', { error: String(error) });
    await answer(event, 'FAILED', `front certificate rotation: ${(error as Error).message}`.slice(0, 500));
    return undefined;
  }
}
