/** The lists several screens read (hotspots, forfaits), and how their selects offer them. */
import type { Forfait, OwnForfait, Vlan } from './answers.js';
import { fcfa, t } from './i18n.js';
import type { Session } from './session.js';
import { useGet } from './ui.js';

/** Every VLAN (an operator) or the reseller's own (the API scopes the list); not asked when `!wanted`. */
export const useVlans = (wanted = true) =>
  useGet<{ items: Vlan[]; total: number }>(wanted ? '/network/vlans?page_size=100' : undefined);

/**
 * The operator's resellers' VLANs: every one but the canary's hotspot (the platform's own, which
 * `GET /canary/status` names), so that "Canary" is never offered or listed as a reseller.
 */
export function useResellerVlans(wanted = true) {
  const vlans = useVlans(wanted);
  const canary = useGet<{ site?: string }>(wanted ? '/canary/status' : undefined);
  if (!vlans.data || (!canary.data && !canary.error)) return { ...vlans, data: undefined };
  const site = canary.data?.site;
  return { ...vlans, data: { ...vlans.data, items: vlans.data.items.filter((v) => v.nas_id !== site) } };
}

/**
 * The reseller's hotspots (its VLAN's NAS id and its sites'): all of them without a reseller;
 * `ssid`, the Wi-Fi network's name, as the printed cards say it.
 */
export function useHotspots(resellerId: string | undefined) {
  const own = (useVlans().data?.items ?? []).filter((v) => !resellerId || v.reseller_id === resellerId);
  return own.map((v) => ({ nas_id: v.nas_id, name: v.reseller_name, ssid: v.ssid }));
}

/** The hotspots as a select offers them, by name. */
export const hotspotOptions = (hotspots: { nas_id: string; name: string }[]) =>
  hotspots.map((h) => [h.nas_id, h.name] as const);

/**
 * A hotspot's name for people, from its NAS id: its reseller's name (the SSID is made from it),
 * and "site n" for a site's own NAS id (`<VLAN NAS id>_s<n>`); the id itself only for one not
 * in the list.
 */
export function hotspotName(vlans: readonly Vlan[], nasId: string): string {
  for (const v of vlans) {
    if (nasId === v.nas_id) return v.reseller_name;
    const site = nasId.startsWith(`${v.nas_id}_s`) ? nasId.slice(v.nas_id.length + 2) : '';
    if (/^\d+$/.test(site)) return `${v.reseller_name} · ${t('site_n', { n: site })}`;
  }
  return nasId;
}

/** The resellers as a select offers them, by name (an operator picks one, never types an id). */
export function resellerOptions(vlans: readonly Vlan[]): (readonly [string, string])[] {
  const names = new Map<string, string>();
  for (const v of vlans) if (!names.has(v.reseller_id)) names.set(v.reseller_id, v.reseller_name);
  return [...names].sort((a, b) => a[1].localeCompare(b[1]));
}

/**
 * The forfaits a screen offers or names: the platform's, and before them a reseller's own
 * (`own` 'sold': those on sale at all its hotspots, which vouchers may sell; 'all': hidden ones
 * too, to name past sales); an agent with one hotspot gets what that hotspot sells.
 */
export function useForfaits(session?: Session, own: 'sold' | 'all' = 'sold') {
  const role = session?.claims.role;
  const agentId = role === 'agent' ? session?.claims.agent_id : undefined;
  const agent = useGet<{ nas_ids?: string[] }>(agentId ? `/agents/${agentId}` : undefined);
  const nas = agent.data?.nas_ids?.length === 1 ? agent.data.nas_ids[0] : undefined;
  const waiting = agentId !== undefined && !agent.data && !agent.error;
  const platform = useGet<{ items: Forfait[] }>(
    waiting ? undefined : `/forfaits?page_size=100${nas ? `&nas_id=${encodeURIComponent(nas)}` : ''}`,
  );
  const mine = useGet<{ items: OwnForfait[] }>(role === 'reseller' ? '/resellers/me/forfaits' : undefined);
  if (role !== 'reseller') return { data: platform.data, error: platform.error };
  if (!platform.data || !mine.data) return { data: undefined, error: platform.error ?? mine.error };
  const mineShown = mine.data.items.filter((f) => own === 'all' || (!f.hidden && f.nas_ids.length === 0));
  return { data: { items: [...mineShown, ...platform.data.items] }, error: undefined };
}

/** The forfaits as a select offers them: "name · price". */
export const forfaitOptions = (forfaits: Forfait[]) =>
  forfaits.map((f) => [f.id, `${f.name} · ${fcfa(f.price_fcfa)}`] as const);
