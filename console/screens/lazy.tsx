import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.js';
import type { Session } from '../session.js';
import { Loading } from '../ui.js';

/**
 * A screen in a chunk of its own, asked for when it is first opened: what the dashboard does
 * not show stays out of its weight (the console's budget, bench/console.ts).
 */
export function lazyScreen<P extends object = { session: Session }>(
  load: () => Promise<FunctionComponent<P>>,
): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  return function Lazy(props: P) {
    const [Component, setComponent] = useState<FunctionComponent<P> | undefined>(() => loaded);
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
