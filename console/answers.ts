/**
 * The API's answers as the console reads them, declared once for every screen: only the fields
 * a screen shows or sends back. Types only (no import): test/unit/console-answers.test.ts holds
 * them against the API's response schemas, so a field the API renames or drops fails the
 * typecheck there rather than on a reseller's screen.
 */

/** A reseller's VLAN (its hotspot): GET /network/vlans. */
export interface Vlan {
  vlan_id: number;
  nas_id: string;
  ssid: string;
  subnet: string;
  reseller_id: string;
  reseller_name: string;
  site_count: number;
}

/** What a printed card says of a forfait (screens/print.tsx). */
export type CardOffer = { name: string; price_fcfa: number; duration_hours: number; data_limit_mb: number };

/** A forfait of the catalogue (GET /forfaits): what a card says of it, and its id. */
export type Forfait = CardOffer & { id: string };

/** An active alert: GET /alerts. */
export interface Alert {
  id: string;
  severity: string;
  type: string;
  site: string;
  message: string;
  acked: boolean;
}

/** A month of a reseller's takings and their split: GET /billing/summary. */
export interface Summary {
  total_fcfa: number;
  sessions_count: number;
  split: { reseller_fcfa: number; operator_fcfa: number; provider_fee_fcfa: number };
  by_channel: { mobile_money: number; voucher: number; cash: number; counter?: number };
  agents: { commission_fcfa: number; reseller_after_commission_fcfa: number };
}

/** An agent as its reseller sees it (GET /agents): what it holds, sold, earned, paid and owes. */
export interface Agent {
  id: string;
  msisdn: string;
  name?: string;
  /** Commission in basis points of each sale's price (1000 = 10 %). */
  commission_bp: number;
  float_fcfa: number;
  sales_count: number;
  sold_fcfa: number;
  commission_fcfa: number;
  cash_received_fcfa: number;
  owed_fcfa: number;
  /** Codes it may still issue, per forfait id. */
  stock: Record<string, number>;
  /** Invited, not yet accepted: it holds and sells nothing yet. */
  status?: 'invited';
}

/** A reseller's own forfait: GET/POST /resellers/me/forfaits, PUT /resellers/me/forfaits/{id}. */
export interface OwnForfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number;
  cir_kbps: number;
  mir_kbps: number;
  max_devices: number;
  time_counts: 'first_login' | 'connected';
  nas_ids: string[];
  position: number;
  hidden: boolean;
}

/** The operator's bounds on own forfaits (GET /resellers/me/forfaits). */
export interface OwnForfaitBounds {
  min_price_fcfa: number;
  max_price_fcfa: number;
  max_duration_hours: number;
  max_count: number;
}
