import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.js';
import type { Session } from '../session.js';
import { Loading } from '../ui.js';

type Screen = FunctionComponent<{ session: Session }>;

/**
 * A screen in a chunk of its own, asked for when it is first opened: what the dashboard does
 * not show stays out of its weight (the console's budget, bench/console.ts).
 */
export function lazyScreen(load: () => Promise<Screen>): Screen {
  let loaded: Screen | undefined;
  return function Lazy(props) {
    const [Component, setComponent] = useState<Screen | undefined>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Component) return;
      load().then(
        (c) => {
          loaded = c;
          setComponent(() => c);
        },
        () => setFailed(true),
      );
    }, []);
    return Component ? <Component {...props} /> : <Loading error={failed ? t('err_network') : undefined} />;
  };
}
