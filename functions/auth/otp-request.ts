import { endpoint, json } from '../core/http.js';
import { OtpRequestBody, OtpRequestResponse } from './schemas.js';
import { requestOtp } from './service.js';

export const handler = endpoint(
  'POST /api/v1/auth/otp/request',
  {
    errors: ['ERR_MSISDN_INVALID', 'ERR_RATE_LIMITED', 'ERR_UNAVAILABLE'],
    body: OtpRequestBody,
    ok: OtpRequestResponse,
  },
  // The client address API Gateway saw (the local server sets it too), and from the portal the
  // hotspot and the device: whom the SMS budgets count the request against.
  async ({ body, event }) =>
    json(
      200,
      await requestOtp(body.msisdn, {
        sourceIp: event.requestContext?.http?.sourceIp,
        nasId: body.nas_id,
        clientMac: body.client_mac,
      }),
    ),
);
