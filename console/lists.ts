/** The lists several screens read (hotspots, forfaits), and how their selects offer them. */
import type { Forfait, Vlan } from './answers.js';
import { fcfa } from './i18n.js';
import { useGet } from './ui.js';

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

export const useForfaits = () => useGet<{ items: Forfait[] }>('/forfaits?page_size=100');

/** The forfaits as a select offers them: "name · price". */
export const forfaitOptions = (forfaits: Forfait[]) =>
  forfaits.map((f) => [f.id, `${f.name} · ${fcfa(f.price_fcfa)}`] as const);
