import type { FunctionComponent } from 'preact';
import type { Session } from '../session.js';
import { Codes } from './codes.js';
import { Dashboard } from './dashboard.js';
import { lazyScreen } from './lazy.js';
import { Payments } from './payments.js';
import { Sessions } from './sessions.js';
import { Statements } from './statements.js';

export type ScreenId =
  | 'dashboard'
  | 'hotspots'
  | 'codes'
  | 'forfaits'
  | 'sessions'
  | 'payments'
  | 'statements'
  | 'resellers'
  | 'network'
  | 'status'
  | 'activity'
  | 'agents'
  | 'sell'
  | 'balance';

export const SCREENS: Record<ScreenId, FunctionComponent<{ session: Session }>> = {
  dashboard: Dashboard,
  // Routers, branding and the framed portal: their own chunk, loaded when the tab is opened.
  hotspots: lazyScreen(() => import('./hotspots.js').then((m) => m.Hotspots)),
  codes: Codes,
  // A reseller's own forfaits: opened now and then, so a chunk of its own.
  forfaits: lazyScreen(() => import('./forfaits.js').then((m) => m.Forfaits)),
  sessions: Sessions,
  payments: Payments,
  statements: Statements,
  // The operator's screens: a chunk of their own, out of the resellers' dashboard weight.
  resellers: lazyScreen(() => import('./admin.js').then((m) => m.Resellers)),
  network: lazyScreen(() => import('./admin.js').then((m) => m.Network)),
  status: lazyScreen(() => import('./admin.js').then((m) => m.Status)),
  activity: lazyScreen(() => import('./admin.js').then((m) => m.Activity)),
  // Agents (the reseller's handovers, the agent's till and balance): a chunk of their own, out of
  // the resellers' dashboard weight; an agent's phone loads it once, then from its cache.
  agents: lazyScreen(() => import('./agents.js').then((m) => m.Agents)),
  sell: lazyScreen(() => import('./agents.js').then((m) => m.Sell)),
  balance: lazyScreen(() => import('./agents.js').then((m) => m.AgentBalance)),
};
