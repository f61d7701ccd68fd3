import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, logOut, onEnded, renew } from './api.js';
import { type Key, lang, setLang, t } from './i18n.js';
import type { ScreenId } from './screens/index.js';
import { Login } from './screens/login.js';
import { loadSession, ownTab, type Session } from './session.js';
import { setWho as shareWho, useWho, type Who } from './who.js';

const RESELLER_TABS: ScreenId[] = [
  'dashboard',
  'hotspots',
  'codes',
  'forfaits',
  'agents',
  'sessions',
  'payments',
  'statements',
  'reports',
];
const ADMIN_TABS: ScreenId[] = [
  'resellers',
  'network',
  'status',
  'payments',
  'reports',
  'activity',
  'hotspots',
  'codes',
];
/** An agent (a shop selling codes for cash) sells and sees its balance, nothing else. */
const AGENT_TABS: ScreenId[] = ['sell', 'balance'];
const tabsOf = (role: string | undefined): ScreenId[] =>
  role === 'admin' ? ADMIN_TABS : role === 'agent' ? AGENT_TABS : RESELLER_TABS;

/** The tab in the address (#codes), so that a reload or the back button keeps the screen. */
const tabOf = (tabs: ScreenId[]): ScreenId => {
  const asked = location.hash.slice(1) as ScreenId;
  return tabs.includes(asked) ? asked : (tabs[0] as ScreenId);
};

type Screens = typeof import('./screens/index.js')['SCREENS'];
/**
 * The screens are a chunk of their own, asked for once logged in: the login page carries only
 * Preact, the login form and the words.
 */
let screens: Promise<Screens> | undefined;
const loadScreens = () => {
  screens ??= import('./screens/index.js').then((m) => m.SCREENS);
  return screens;
};

/**
 * The account's name (the reseller's business, the agent's shop), its number in the national
 * form of the reseller's country, and that country, as the API writes them; nothing when they
 * cannot be read now.
 */
async function whoIs(): Promise<Who> {
  try {
    const a = await api<Who>('GET', '/auth/session');
    return a.status === 200 ? { ...a.body } : {};
  } catch {
    return {};
  }
}

function App() {
  const [loaded, setLoaded] = useState<Screens>();
  const [session, setSession] = useState<Session | undefined>(loadSession());
  const [, setLangTick] = useState(lang);
  const [ended, setEnded] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [everywhere, setEverywhere] = useState(false);
  const who = useWho();
  const role = session?.claims.role;
  const tabs = tabsOf(role);
  const [asked, setTab] = useState<ScreenId>(tabOf(tabs));
  const tab = tabs.includes(asked) ? asked : (tabs[0] as ScreenId);

  const token = session?.token;
  // Read again with each new session (not each renewed token: the same session's owner).
  const sid = session?.claims.sid ?? token;
  useEffect(() => {
    shareWho({});
    if (sid) void whoIs().then(shareWho);
  }, [sid]);

  // A tab opened from another takes a session of its own (console/session.ts).
  useEffect(() => {
    void ownTab(async () => (await renew(true)) === 'ok').then(() => setSession(loadSession()));
  }, []);

  useEffect(() => {
    // The session ended under the screen: the login, with no code sent until one is asked for.
    onEnded(() => {
      setSession(undefined);
      setEnded(true);
    });
    const onHash = () => setTab(tabOf(tabs));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, [tabs]);

  const switchLang = () => {
    setLang(lang === 'fr' ? 'en' : 'fr');
    setLangTick(lang);
  };
  const langButton = (
    <button type="button" class="link" lang={lang === 'fr' ? 'en' : 'fr'} onClick={switchLang}>
      {t('lang_switch')}
    </button>
  );

  // The tab shown is in view in the menu, wherever a link or a reload opened it (nine tabs are
  // wider than a phone): the menu scrolls to it, the page does not move.
  const tabsRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const nav = tabsRef.current;
    const link = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (nav && link)
      nav.scrollLeft = link.offsetLeft - nav.offsetLeft - (nav.clientWidth - link.offsetWidth) / 2;
  });

  if (!session || role === 'subscriber') {
    return (
      <main id="main" class="login">
        <div class="top-right">{langButton}</div>
        <Login
          ended={ended}
          onDone={(s) => {
            setEnded(false);
            setSession(s);
            // The screen a link pointed at (/console#activity) is opened once the role is known.
            const mine = tabsOf(s.claims.role);
            const linked = location.hash.slice(1) as ScreenId;
            const to = mine.includes(linked) ? linked : (mine[0] as ScreenId);
            if (location.hash.slice(1) !== to) location.hash = to === mine[0] ? '' : to;
            setTab(to);
          }}
        />
      </main>
    );
  }

  if (!loaded) {
    void loadScreens().then(setLoaded);
    return <p aria-busy="true">{t('loading')}</p>;
  }
  const logout = async (all = false) => {
    // What the screen was loading arrives first, under the session it was asked with.
    setLeaving(true);
    await logOut(all);
    setLeaving(false);
    setEverywhere(false);
    sessionStorage.removeItem('msisdn');
    setSession(undefined);
  };
  const Screen = loaded[tab];
  return (
    <>
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <header class="bar">
        <strong data-testid="console-title">
          {t(role === 'admin' ? 'app_admin' : role === 'agent' ? 'app_agent' : 'app')}
        </strong>
        <span class="who" data-testid="who">
          <span class="who-name">{role === 'admin' ? t('operator') : who.name}</span>
          {who.phone ? <span class="who-phone">{who.phone}</span> : null}
        </span>
        {langButton}
        <button type="button" class="link" onClick={() => logout()} disabled={leaving} aria-busy={leaving}>
          {t('logout')}
        </button>
      </header>
      <nav aria-label={t('menu')} class="tabs" ref={tabsRef}>
        {tabs.map((id) => (
          <a key={id} href={`#${id}`} aria-current={id === tab ? 'page' : undefined}>
            {t(`t_${id}` as Key)}
          </a>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{t(`t_${tab}` as Key)}</h1>
        <Screen session={session} />
      </main>
      <footer class="no-print">
        {everywhere ? (
          <p class="confirm">
            <span>{t('logout_all_q')}</span>
            <span class="buttons">
              <button type="button" class="small danger" onClick={() => logout(true)} disabled={leaving}>
                {t('logout_all_yes')}
              </button>
              <button type="button" class="small secondary" onClick={() => setEverywhere(false)}>
                {t('cancel')}
              </button>
            </span>
          </p>
        ) : (
          <button type="button" class="link" onClick={() => setEverywhere(true)}>
            {t('logout_all')}
          </button>
        )}
      </footer>
    </>
  );
}

setLang(lang);
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
