import { describe, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import type { Agent, Alert, Forfait, Summary, Vlan } from '../../console/answers.js';
import type { AgentSchema } from '../../functions/agents/schemas.js';
import type { ForfaitsPage } from '../../functions/billing/forfait-schemas.js';
import type { SummaryResponse } from '../../functions/billing/revenue-schemas.js';
import type { AlertSchema } from '../../functions/monitoring/schemas.js';
import type { VlansPage } from '../../functions/network/schemas.js';

type VlanItem = z.infer<typeof VlansPage>['items'][number];

/**
 * The console declares only the fields it reads of each answer (console/answers.ts); each of
 * the API's response schemas must still give them, with the same types. Type assertions: a
 * field the API renames, drops or retypes fails `npm run typecheck` (and so `npm test`).
 */
describe("the console's view of the API's answers", () => {
  it('reads only fields the API answers, with their types', () => {
    expectTypeOf<VlanItem>().toExtend<Vlan>();
    expectTypeOf<z.infer<typeof ForfaitsPage>['items'][number]>().toExtend<Forfait>();
    expectTypeOf<z.infer<typeof AlertSchema>>().toExtend<Alert>();
    expectTypeOf<z.infer<typeof SummaryResponse>>().toExtend<Summary>();
    expectTypeOf<z.infer<typeof AgentSchema>>().toExtend<Agent>();
  });

  it('is not satisfied by an answer without a field the console reads', () => {
    expectTypeOf<Omit<VlanItem, 'nas_id'>>().not.toExtend<Vlan>();
    expectTypeOf<Omit<z.infer<typeof AgentSchema>, 'owed_fcfa'>>().not.toExtend<Agent>();
  });
});
