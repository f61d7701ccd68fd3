// POST /api/v1/auth/otp/request: Send a one-time password by SMS

import { endpoint, json } from '../core/http.js';
import { countryOf } from '../core/phone.mjs';
import { requireLoginMsisdn } from './otp.js';
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
  // With `country` (the console), a number may be written the national way: read there (else in
  // the one served country where it is valid), and answered as read, so that the client
  // verifies the same number and keeps its country for the next login.
  async ({ body, event }) => {
    const msisdn = body.country ? requireLoginMsisdn(body.msisdn, body.country) : body.msisdn;
    const sent = await requestOtp(msisdn, {
      sourceIp: event.requestContext?.http?.sourceIp,
      nasId: body.nas_id,
      clientMac: body.client_mac,
    });
    return json(200, body.country ? { ...sent, msisdn, country: countryOf(msisdn) } : sent);
  },
);
