import type { FunctionComponent } from 'preact';
import type { Session } from '../session.js';
import { Dashboard } from './dashboard.js';
import { lazyScreen } from './lazy.js';

export type ScreenId =
  | 'dashboard'
  | 'hotspots'
  | 'codes'
  | 'forfaits'
  | 'sessions'
  | 'payments'
  | 'statements'
  | 'reports'
  | 'resellers'
  | 'network'
  | 'status'
  | 'activity'
  | 'agents'
  | 'sell'
  | 'balance';

/**
 * The dashboard is the only screen in this chunk: a reseller's first screen, it must be usable
 * on 2G within 3 s (docs/console.md, "Budgets"). Every other screen is a chunk of its own,
 * asked for when its tab is first opened.
 */
export const SCREENS: Record<ScreenId, FunctionComponent<{ session: Session }>> = {
  dashboard: Dashboard,
  // Routers, branding and the framed portal: their own chunk, loaded when the tab is opened.
  hotspots: lazyScreen(() => import('./hotspots.js').then((m) => m.Hotspots)),
  codes: lazyScreen(() => import('./codes.js').then((m) => m.Codes)),
  // A reseller's own forfaits: opened now and then, so a chunk of its own.
  forfaits: lazyScreen(() => import('./forfaits.js').then((m) => m.Forfaits)),
  sessions: lazyScreen(() => import('./sessions.js').then((m) => m.Sessions)),
  payments: lazyScreen(() => import('./payments.js').then((m) => m.Payments)),
  statements: lazyScreen(() => import('./statements.js').then((m) => m.Statements)),
  // Sales over a range: by hotspot, forfait, agent and channel, CSV, printable.
  reports: lazyScreen(() => import('./reports.js').then((m) => m.Reports)),
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
