/**
 * The secrets every test process runs with (test/support/setup.ts) and the edge stack is started
 * with (test/support/global-setup.ts), so a token minted in a test is valid for the edge stack too.
 */
export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789abcdef',
  OTP_PEPPER: 'test-otp-pepper-0123456789abcdef',
  WEBHOOK_SECRET: 'test-webhook-secret-0123456789',
  RADIUS_API_SECRET: 'test-radius-api-secret-0123456789abcdef',
  ROUTER_CA_KEY: 'test-router-ca-key-0123456789abcdef0123456',
  ROUTER_SEAL_KEY: 'test-router-seal-key-0123456789abcdef01234',
} as const;
