/**
 * The API's answers as the console reads them, declared once for every screen: only the fields
 * a screen shows or sends back. test/unit/console-answers.test.ts holds them against the API's
 * own types, so a field the API renames or drops fails the typecheck here rather than on a
 * reseller's screen.
 */
import { fcfa } from './i18n.js';
import { useGet } from './ui.js';

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

/** Every VLAN (an operator) or the reseller's own (the API scopes the list); not asked when `!wanted`. */
export const useVlans = (wanted = true) =>
  useGet<{ items: Vlan[]; total: number }>(wanted ? '/network/vlans?page_size=100' : undefined);

/** The reseller's hotspots (its VLAN's NAS id and its sites'): all of them without a reseller. */
export function useHotspots(resellerId: string | undefined) {
  const own = (useVlans().data?.items ?? []).filter((v) => !resellerId || v.reseller_id === resellerId);
  return own.map((v) => ({ nas_id: v.nas_id, name: v.reseller_name }));
}

/** The hotspots as a select offers them: "name (NAS id)". */
export const hotspotOptions = (hotspots: { nas_id: string; name: string }[]) =>
  hotspots.map((h) => [h.nas_id, `${h.name} (${h.nas_id})`] as const);

/** A forfait of the catalogue: GET /forfaits. */
export interface Forfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number;
}

export const useForfaits = () => useGet<{ items: Forfait[] }>('/forfaits?page_size=100');

/** The forfaits as a select offers them: "name · price". */
export const forfaitOptions = (forfaits: Forfait[]) =>
  forfaits.map((f) => [f.id, `${f.name} · ${fcfa(f.price_fcfa)}`] as const);

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
}
