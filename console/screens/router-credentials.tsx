import { t } from '../i18n.js';
import { Field } from '../ui.js';

/**
 * A router's credentials as the API answers them once (POST /routers, a renewal, or the first
 * router of an onboarding): shown on the Hotspots screen and on the operator's onboarding form.
 */

export interface Router {
  router_id: string;
  name: string;
  nas_ids: string[];
  transport: 'udp' | 'radsec';
  source_ip?: string;
  cert_not_after?: string;
  status: 'active' | 'revoked';
  /** From its own traffic (the API decides): jamais vu, en ligne, silencieux depuis `last_heard_at`. */
  state: 'never_seen' | 'online' | 'silent';
  last_heard_at?: string;
}

/** The two ways a router reaches RADIUS, as a select offers them (RadSec first: it works behind NAT). */
export const transportOptions = () =>
  [
    ['radsec', t('transport_radsec')],
    ['udp', t('transport_udp')],
  ] as const;

export interface Issued {
  router: Router;
  credentials:
    | { transport: 'udp'; secret: string; source_ip: string }
    | { transport: 'radsec'; certificate_pem: string; private_key_pem: string; serial: string };
  routeros_script?: string;
}

/** Saves text as a file (built in the page: the script is in the answer that holds the credentials). */
export function save(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** What was issued, shown once: the UDP secret or the RadSec certificate and key, and the script. */
export function Credentials(props: { issued: Issued; onDone: () => void; renewed?: boolean }) {
  const { router, credentials: c, routeros_script: script } = props.issued;
  // A new script for a router already there renews its credentials: it was not "added".
  const said = t(props.renewed ? 'router_renewed' : 'router_added', { name: router.name });
  return (
    <section class="credentials" aria-label={said}>
      <p role="status">
        <strong>{said}</strong> {t('credentials_once')}
      </p>
      {c.transport === 'udp' ? (
        <dl class="facts">
          <dt>{t('radius_secret')}</dt>
          <dd>
            <code data-testid="router-secret">{c.secret}</code>
          </dd>
          <dt>{t('registered_ip')}</dt>
          <dd>
            <code>{c.source_ip}</code>
          </dd>
        </dl>
      ) : (
        <>
          <p>
            {t('cert_serial')} <code>{c.serial}</code>
          </p>
          <Field id={`${router.router_id}-cert`} label="certificate">
            <textarea id={`${router.router_id}-cert`} rows={3} readOnly value={c.certificate_pem} />
          </Field>
          <Field id={`${router.router_id}-key`} label="private_key">
            <textarea id={`${router.router_id}-key`} rows={3} readOnly value={c.private_key_pem} />
          </Field>
        </>
      )}
      <div class="buttons">
        {script ? (
          <button type="button" onClick={() => save(`${router.nas_ids[0] ?? router.router_id}.rsc`, script)}>
            {t('download_script')}
          </button>
        ) : (
          <p>{t('no_script')}</p>
        )}
        <button type="button" class="secondary" onClick={props.onDone}>
          {t('hide_credentials')}
        </button>
      </div>
    </section>
  );
}
