import { useEffect, useState } from 'preact/hooks';

/**
 * Whose session it is, as `GET /auth/session` names it: the reseller's business or the agent's
 * name, the number as written at home, and the country numbers and times are read in. Read once
 * per session by the app (console/main.tsx); screens follow it with `useWho`.
 */
export interface Who {
  name?: string;
  phone?: string;
  country?: string;
}

let current: Who = {};
const listeners = new Set<(w: Who) => void>();

export function setWho(who: Who): void {
  current = who;
  for (const l of listeners) l(who);
}

/** The session's owner, and again whenever it is read anew. */
export function useWho(): Who {
  const [who, set] = useState(current);
  useEffect(() => {
    listeners.add(set);
    set(current);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return who;
}
