import type { FunctionComponent } from 'preact';
import type { Session } from '../session.js';
import { Activity, Network, Resellers, Status } from './admin.js';
import { AgentBalance, Agents, Sell } from './agents.js';
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
  sessions: Sessions,
  payments: Payments,
  statements: Statements,
  resellers: Resellers,
  network: Network,
  status: Status,
  activity: Activity,
  agents: Agents,
  sell: Sell,
  balance: AgentBalance,
};
