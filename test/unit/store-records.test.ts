import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import type { ForfaitsPage } from '../../functions/billing/forfait-schemas.js';
import type { Gateway } from '../../functions/billing/gateways/registry.js';
import type { PaymentInitiateBody, PaymentStatusResponse } from '../../functions/billing/payment-schemas.js';
import type { EntitlementResponse, VouchersPage } from '../../functions/billing/voucher-schemas.js';
import type { Currency } from '../../functions/core/currency.js';
import type { AlertSchema, SessionViewSchema } from '../../functions/monitoring/schemas.js';
import type { sessionView } from '../../functions/radius/disconnect.js';
import type { Alert } from '../../functions/store/alerts.js';
import type { Entitlement } from '../../functions/store/entitlements.js';
import type { Forfait } from '../../functions/store/forfaits.js';
import type { Payment, PaymentGateway, Provider } from '../../functions/store/payments.js';
import type { VoucherStatus } from '../../functions/store/vouchers.js';

/**
 * The store declares what it stores; the API's schemas are checked against those declarations
 * here. These are type assertions: a drift fails `npm run typecheck` (and so `npm test`).
 */
/** A session as the API's session route answers it, and its disconnect. */
type SessionView = Awaited<ReturnType<typeof sessionView>>;
type DisconnectView = NonNullable<SessionView['disconnect']>;

describe('API schemas match the records the store declares', () => {
  it('a forfait and an entitlement are answered as stored', () => {
    expectTypeOf<z.infer<typeof ForfaitsPage>['items'][number]>().toEqualTypeOf<Forfait>();
    expectTypeOf<z.infer<typeof EntitlementResponse>>().toEqualTypeOf<Entitlement>();
    expectTypeOf<z.infer<typeof AlertSchema>>().toEqualTypeOf<Alert>();
  });

  it('a RADIUS session and its disconnect are answered as stored', () => {
    expectTypeOf<z.infer<typeof SessionViewSchema>>().toEqualTypeOf<SessionView>();
    expectTypeOf<
      NonNullable<z.infer<typeof SessionViewSchema>['disconnect']>
    >().toEqualTypeOf<DisconnectView>();
  });

  it('the value lists the API accepts or answers are the stored ones', () => {
    expectTypeOf<z.infer<typeof PaymentInitiateBody>['provider']>().toEqualTypeOf<Provider>();
    // The store does not list gateways: every registered name is storable, and only one the
    // registry validated (a plain string is not a PaymentGateway).
    expectTypeOf<Gateway>().toExtend<PaymentGateway>();
    expectTypeOf<string>().not.toExtend<PaymentGateway>();
    expectTypeOf<'sandbox'>().not.toExtend<PaymentGateway>();
    type Answered = z.infer<typeof PaymentStatusResponse>;
    expectTypeOf<Answered['status']>().toEqualTypeOf<Payment['status']>();
    expectTypeOf<Answered['currency']>().toEqualTypeOf<Currency>();
    expectTypeOf<z.infer<typeof VouchersPage>['items'][number]['status']>().toEqualTypeOf<VoucherStatus>();
  });
});

describe('the store imports no area', () => {
  const dir = join(import.meta.dirname, '../../functions/store');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

  it('reads every store module', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  for (const file of files) {
    it(`${file} imports only the store, core/ and packages`, () => {
      const source = readFileSync(join(dir, file), 'utf8');
      const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g)].map(
        (m) => m[1] as string,
      );
      const dynamic = [...source.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] as string);
      const upward = [...specifiers, ...dynamic].filter(
        (s) => s.startsWith('..') && !s.startsWith('../core/'),
      );
      expect(upward).toEqual([]);
    });
  }
});
