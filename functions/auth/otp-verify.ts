// POST /api/v1/auth/otp/verify: Exchange a one-time password for a session token

import { endpoint, json } from '../core/http.js';
import { OtpVerifyBody, OtpVerifyResponse } from './schemas.js';
import { verifyOtp } from './service.js';

export const handler = endpoint(
  'POST /api/v1/auth/otp/verify',
  {
    errors: ['ERR_OTP_INVALID', 'ERR_OTP_EXPIRED', 'ERR_RATE_LIMITED', 'ERR_UNAVAILABLE'],
    body: OtpVerifyBody,
    ok: OtpVerifyResponse,
  },
  // The client address limits the guesses made without the request's otp_token.
  async ({ body, event }) =>
    json(
      200,
      await verifyOtp(
        body.msisdn,
        body.otp,
        body.otp_token,
        { sourceIp: event.requestContext?.http?.sourceIp },
        { rememberDevice: body.remember_device === true },
      ),
    ),
);
