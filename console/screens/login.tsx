import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { type Key, t } from '../i18n.js';
import { type Session, saveSession } from '../session.js';
import { failure, Input, Message } from '../ui.js';

/** Sends the SMS code; answers an error message, or undefined when the code is on its way. */
async function requestCode(msisdn: string): Promise<string | undefined> {
  try {
    const a = await api('POST', '/auth/otp/request', { msisdn });
    if (a.status === 200 || a.status === 202) return undefined;
    if (a.status === 429) return t('err_rate', { seconds: a.body.retry_after_seconds ?? 60 });
    return t('err_phone');
  } catch (e) {
    return failure(e);
  }
}

/**
 * The invitation link a reseller's new agent was texted (`/console#accept=<agent id>`): the
 * number, just logged in as a subscriber, accepts it and goes on with the agent's session.
 * Undefined without such a link, or when the invitation is not this number's.
 */
async function acceptInvitation(msisdn: string): Promise<Session | undefined> {
  const id = /^#accept=([0-9a-f-]{36})$/i.exec(location.hash)?.[1];
  if (!id) return undefined;
  // Sent with the subscriber session just saved.
  const a = await api<{ session_token: string }>('POST', `/agents/${id}/accept`);
  if (a.status !== 200) return undefined;
  // The link is spent; replaced without a hashchange, which would pick a tab of the old session.
  history.replaceState(null, '', location.pathname + location.search);
  return saveSession(a.body.session_token, msisdn);
}

/** Checks the code; answers the new session, or an error message. */
async function verifyCode(msisdn: string, otp: string): Promise<Session | string> {
  try {
    const a = await api<{ session_token: string }>('POST', '/auth/otp/verify', { msisdn, otp });
    if (a.status === 429) return t('err_rate', { seconds: a.body.retry_after_seconds ?? 60 });
    if (a.status !== 200) return t('err_code');
    const s = saveSession(a.body.session_token, msisdn);
    if (s?.claims.role === 'subscriber') return (await acceptInvitation(msisdn)) ?? t('not_operator');
    if (!s) return t('not_operator');
    return s;
  } catch (e) {
    return failure(e);
  }
}

/**
 * A form of one field and its button (the phone number, then the SMS code): `send` answers the
 * message to show under the field, or undefined when it went through.
 */
function OneField(
  props: Omit<Parameters<typeof Input>[0], 'value' | 'onValue' | 'error'> & {
    initial?: string;
    button: Key;
    intro?: ComponentChildren;
    send: (value: string) => Promise<string | undefined>;
  },
) {
  const { initial, button, intro, send, ...input } = props;
  const [value, setValue] = useState(initial ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const err = await send(value);
    setBusy(false);
    setError(err);
  };
  return (
    <form onSubmit={submit} novalidate>
      {intro}
      <Input {...input} value={value} onValue={setValue} error={error} />
      <button type="submit" disabled={busy}>
        {t(button)}
      </button>
    </form>
  );
}

function CodeForm(props: { msisdn: string; onDone: (s: Session) => void }) {
  const field = useRef<HTMLInputElement>(null);
  // The code field takes the focus when it appears: the next thing to do is type the SMS code.
  useEffect(() => field.current?.focus(), []);
  return (
    <OneField
      id="otp"
      label="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      inputRef={field}
      button="validate"
      send={async (otp) => {
        const r = await verifyCode(props.msisdn, otp.trim());
        if (typeof r === 'string') return r;
        props.onDone(r);
        return undefined;
      }}
    />
  );
}

export function Login(props: { onDone: (s: Session) => void }) {
  const [msisdn, setMsisdn] = useState(sessionStorage.getItem('msisdn') ?? '+225');
  const [sent, setSent] = useState(false);
  return (
    <section class="card narrow">
      <h1>{t('app')}</h1>
      <h2>{t('login_title')}</h2>
      {!sent ? (
        <OneField
          id="msisdn"
          label="phone"
          type="tel"
          autoComplete="tel"
          initial={msisdn}
          button="send_code"
          intro={<p>{t('login_intro')}</p>}
          send={async (typed) => {
            const number = typed.replace(/[\s.()-]/g, '');
            const err = await requestCode(number);
            if (!err) {
              setMsisdn(number);
              setSent(true);
            }
            return err;
          }}
        />
      ) : (
        <>
          <p role="status">{t('code_sent', { msisdn })}</p>
          <CodeForm msisdn={msisdn} onDone={props.onDone} />
          <button type="button" class="link" onClick={() => setSent(false)}>
            {t('other_number')}
          </button>
        </>
      )}
    </section>
  );
}

/**
 * The expired-session dialog: a new code is sent to the same number at once, and the page under
 * the dialog stays as it was (the request that met the 401 is sent again once logged in).
 */
export function Relogin(props: { msisdn: string; onDone: (s: Session | undefined) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    ref.current?.showModal();
    void requestCode(props.msisdn).then(setError);
  }, [props.msisdn]);
  return (
    <dialog ref={ref} aria-labelledby="relogin-title" onCancel={() => props.onDone(undefined)}>
      <h2 id="relogin-title">{t('session_expired')}</h2>
      <p>{t('session_expired_intro', { msisdn: props.msisdn })}</p>
      <Message text={error} />
      <CodeForm msisdn={props.msisdn} onDone={(s) => props.onDone(s)} />
      <button type="button" class="link" onClick={() => props.onDone(undefined)}>
        {t('cancel')}
      </button>
    </dialog>
  );
}
