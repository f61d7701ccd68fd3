import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { SERVED } from '../countries.js';
import { type Key, t } from '../i18n.js';
import { type Session, saveSession } from '../session.js';
import { failure, Input } from '../ui.js';

/** What a step answers: nothing when it went through, else the message and, for a 429, the server's wait. */
type Outcome = undefined | { message: string; waitS?: number };

/** A 429: the server's own wait (Retry-After), shown as it is; nothing is sent again meanwhile. */
const wait = (seconds: number | undefined): Outcome => {
  const waitS = seconds ?? 60;
  return { message: t('err_rate', { seconds: waitS }), waitS };
};

/**
 * Sends the SMS code; answers the request's `otp_token` (verify sends it back: only then do the
 * number's guesses count against this code alone), or what went wrong.
 */
async function requestCode(
  msisdn: string,
  country?: string,
): Promise<{ token: string; msisdn: string; country?: string } | Outcome> {
  try {
    const a = await api<{ otp_token?: string; msisdn?: string; country?: string }>(
      'POST',
      '/auth/otp/request',
      { msisdn, ...(country ? { country } : {}) },
    );
    if (a.status === 200 || a.status === 202)
      return {
        token: a.body.otp_token ?? '',
        msisdn: a.body.msisdn ?? msisdn,
        ...(a.body.country ? { country: a.body.country } : {}),
      };
    if (a.status === 429) return wait(a.retryAfter);
    return { message: t('err_phone') };
  } catch (e) {
    return { message: failure(e) };
  }
}

/**
 * Where a number typed without its country code is read: the country of the last number that
 * logged in on this browser, else the browser's region when served, else Côte d'Ivoire.
 */
function homeCountry(): string {
  let kept: string | null = null;
  try {
    kept = localStorage.getItem('country');
  } catch {
    // Private mode: nothing kept.
  }
  const region = navigator.languages.map((l) => l.split('-')[1]?.toUpperCase() ?? '');
  return [kept ?? '', ...region].find((c) => SERVED.includes(c)) ?? 'CI';
}

const keepCountry = (country: string | undefined) => {
  try {
    if (country && SERVED.includes(country)) localStorage.setItem('country', country);
  } catch {
    // Private mode: not kept.
  }
};

/**
 * The invitation link a reseller's new agent was texted (`/console#accept=<agent id>`): the
 * number, just logged in as a subscriber, accepts it and goes on with the agent's session.
 * Undefined without such a link, or when the invitation is not this number's.
 */
async function acceptInvitation(msisdn: string): Promise<Session | undefined> {
  const id = /^#accept=([0-9a-f-]{36})$/i.exec(location.hash)?.[1];
  if (!id) return undefined;
  // Sent with the subscriber session just saved.
  const a = await api<{ session_token: string; refresh_token?: string }>('POST', `/agents/${id}/accept`);
  if (a.status !== 200) return undefined;
  // The link is spent; replaced without a hashchange, which would pick a tab of the old session.
  history.replaceState(null, '', location.pathname + location.search);
  return saveSession(a.body.session_token, msisdn, a.body.refresh_token);
}

/** Checks the code with the request's `otp_token`; answers the new session, or what went wrong. */
async function verifyCode(
  msisdn: string,
  otp: string,
  token: string | undefined,
): Promise<Session | Outcome> {
  try {
    const a = await api<{ session_token: string; refresh_token?: string }>('POST', '/auth/otp/verify', {
      msisdn,
      otp,
      ...(token ? { otp_token: token } : {}),
    });
    if (a.status === 429) return wait(a.retryAfter);
    if (a.status !== 200) return { message: t('err_code') };
    const s = saveSession(a.body.session_token, msisdn, a.body.refresh_token);
    if (s?.claims.role === 'subscriber')
      return (await acceptInvitation(msisdn)) ?? { message: t('not_operator') };
    if (!s) return { message: t('not_operator') };
    return s;
  } catch (e) {
    return { message: failure(e) };
  }
}

/**
 * A form of one field and its button (the phone number, then the SMS code): `send` answers what
 * to show under the field, or undefined when it went through. After a 429 the button stays off
 * for the server's wait: nothing is sent (no SMS, no guess) until then.
 */
function OneField(
  props: Omit<Parameters<typeof Input>[0], 'value' | 'onValue' | 'error'> & {
    initial?: string;
    button: Key;
    intro?: ComponentChildren;
    send: (value: string) => Promise<Outcome>;
  },
) {
  const { initial, button, intro, send, ...input } = props;
  const [value, setValue] = useState(initial ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [waiting, setWaiting] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (waiting) return;
    setBusy(true);
    const out = await send(value);
    setBusy(false);
    setError(out?.message);
    if (out?.waitS) {
      setWaiting(true);
      setTimeout(() => setWaiting(false), out.waitS * 1000);
    }
  };
  return (
    <form onSubmit={submit} novalidate>
      {intro}
      <Input {...input} value={value} onValue={setValue} error={error} />
      <button type="submit" disabled={busy || waiting}>
        {t(button)}
      </button>
    </form>
  );
}

function CodeForm(props: { msisdn: string; token: string | undefined; onDone: (s: Session) => void }) {
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
        const r = await verifyCode(props.msisdn, otp.trim(), props.token);
        if (!r || 'message' in r) return r;
        props.onDone(r);
        return undefined;
      }}
    />
  );
}

/** The login: the number, then the SMS code. `ended`: a session just ended, said above the form. */
export function Login(props: { onDone: (s: Session) => void; ended?: boolean }) {
  const [msisdn, setMsisdn] = useState(sessionStorage.getItem('msisdn') ?? '');
  const [sent, setSent] = useState(false);
  const [token, setToken] = useState<string>();
  return (
    <section class="card narrow">
      <h1>{t('app')}</h1>
      <h2>{t('login_title')}</h2>
      {props.ended ? <p role="status">{t('session_ended')}</p> : null}
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
            // Typed as people write it ("07 12 34 56 78"): the API reads it in the country of
            // the last number logged in here (else the browser's) and answers it in E.164.
            const r = await requestCode(typed.trim(), homeCountry());
            if (r && 'token' in r) {
              keepCountry(r.country);
              setMsisdn(r.msisdn);
              setToken(r.token);
              setSent(true);
              return undefined;
            }
            return r;
          }}
        />
      ) : (
        <>
          <p role="status">{t('code_sent', { msisdn })}</p>
          <CodeForm msisdn={msisdn} token={token} onDone={props.onDone} />
          <button type="button" class="link" onClick={() => setSent(false)}>
            {t('other_number')}
          </button>
        </>
      )}
    </section>
  );
}
