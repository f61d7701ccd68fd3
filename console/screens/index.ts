import type { FunctionComponent } from 'preact';
import type { Session } from '../session.js';
import { AgentBalance, Agents, Sell } from './agents.js';
import { Codes } from './codes.js';
import { Dashboard } from './dashboard.js';
import { lazyScreen } from './lazy.js';
import { Sessions } from './sessions.js';

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
  // Payments: looked at now and then, out of the dashboard's weight.
  payments: lazyScreen(() => import('./payments.js').then((m) => m.Payments)),
  // A month's statement: printed now and then, out of the dashboard's weight.
  statements: lazyScreen(() => import('./statements.js').then((m) => m.Statements)),
  // The operator's screens: a chunk of their own, out of the resellers' dashboard weight.
  resellers: lazyScreen(() => import('./admin.js').then((m) => m.Resellers)),
  network: lazyScreen(() => import('./admin.js').then((m) => m.Network)),
  status: lazyScreen(() => import('./admin.js').then((m) => m.Status)),
  activity: lazyScreen(() => import('./admin.js').then((m) => m.Activity)),
  agents: Agents,
  sell: Sell,
  balance: AgentBalance,
};
