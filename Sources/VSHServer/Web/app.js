// The vsh web app: the router and the shell. Each page is a module of its own in pages/, drawn from
// the /v1 API (docs/api.md); what the pages share is shell.js.
import { session, ApiError, OfflineError } from './api.js';
import { h, fill } from './dom.js';
import { t, load as loadLanguage } from './i18n.js';
import { main, cleanups, go, Silent, siteTitle, setSiteTitle, translateShell, showConnection, flushOutbox, showAnnouncements } from './shell.js';
import { feedPage } from './pages/feed.js';
import { huntPage } from './pages/hunt.js';
import { stopPage } from './pages/stop.js';
import { leaderboardPage } from './pages/leaderboard.js';
import { playerPage, mePage } from './pages/profile.js';
import { signUpPage, signInPage, resetPasswordPage } from './pages/accounts.js';
import { reviewPage } from './pages/review.js';
import { organisePage, editorPage } from './pages/organise.js';
import { joinPage } from './pages/join.js';
import { projectorPage } from './pages/projector.js';
import { teamPage } from './pages/team.js';
import { livePage } from './pages/live.js';
import { displayPage } from './pages/display.js';

const routes = [
  [/^\/$/, feedPage, 'hunts'],
  // Signing up or in, resetting a password and reviewing are not the profile: no tab is current.
  [/^\/signup$/, signUpPage, null],
  [/^\/signin$/, signInPage, null],
  [/^\/reset-password$/, resetPasswordPage, null],
  [/^\/hunts\/([^/]+)$/, huntPage, 'hunts'],
  [/^\/stops\/([^/]+)$/, stopPage, 'hunts'],
  [/^\/leaderboard$/, leaderboardPage, 'leaderboard'],
  [/^\/players\/([^/]+)$/, playerPage, 'leaderboard'],
  [/^\/me$/, mePage, 'me'],
  [/^\/review$/, reviewPage, null],
  [/^\/organise$/, organisePage, null],
  [/^\/organise\/([^/]+)$/, editorPage, null],
  [/^\/join\/([^/]+)$/, joinPage, 'hunts'],
  [/^\/board\/([^/]+)$/, projectorPage, null],
  [/^\/teams\/(\d+)$/, teamPage, 'leaderboard'],
  [/^\/live$/, livePage, null],
  [/^\/display\/([^/]+)$/, displayPage, null],
];

async function render() {
  for (const cleanup of cleanups.splice(0)) cleanup();
  const path = location.pathname;
  const match = routes.map(([re, page, tab]) => [path.match(re), page, tab]).find(([m]) => m);
  for (const link of document.querySelectorAll('.tabs a')) {
    if (match && link.dataset.tab === match[2]) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  showWho();
  fill(main, h('p', { class: 'loading' }, t('Loading…')));
  try {
    if (!match) throw new ApiError(404, t('Not found'), t('There is no page here.'));
    const params = match[0].slice(1).map(decodeURIComponent);
    await match[1](...params);
  } catch (error) {
    if (error instanceof Silent) return;
    showError(error);
  }
  const heading = main.querySelector('h1');
  if (heading) document.title = `${heading.textContent} · ${siteTitle}`;
  if (rendered) main.focus({ preventScroll: false });
  rendered = true;
}
let rendered = false;

function showError(error) {
  if (error instanceof ApiError && error.status === 401) {
    go(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    return;
  }
  const words = error instanceof OfflineError ? t('You are offline, and this page has not been loaded yet.')
    : error instanceof ApiError ? error.message : t('Something went wrong drawing this page.');
  fill(main, h('h1', {}, error instanceof ApiError && error.status === 404 ? t('Not found') : t('Cannot show this page')),
    h('p', { class: 'error' }, words), h('p', {}, h('a', { href: '/' }, t('Back to the hunts'))));
}

document.addEventListener('click', (event) => {
  const a = event.target.closest && event.target.closest('a[href]');
  if (!a || a.target || a.hasAttribute('download') || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/v1/') || url.pathname.startsWith('/share/') || url.pathname.startsWith('/app/')) return;
  event.preventDefault();
  go(url.pathname + url.search);
});
window.addEventListener('popstate', render);
window.addEventListener('vsh:render', render);

function showWho() {
  const s = session();
  const who = document.getElementById('who');
  if (s) fill(who, h('a', { href: '/me' }, s.player.username));
  else fill(who, h('a', { href: '/signin' }, t('Sign in')));
}

window.addEventListener('online', () => { showConnection(); flushOutbox(); });
window.addEventListener('offline', showConnection);
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof Silent) event.preventDefault();
});

// The operator's title (`vsh serve --title`) and the language, before the first page is drawn.
Promise.all([
  fetch('/app/config.json').then((answer) => answer.json()).then((c) => { if (c && c.title) setSiteTitle(c.title); }).catch(() => {}),
  loadLanguage(),
]).then(() => {
  translateShell();
  return render();
}).then(() => {
  showConnection();
  flushOutbox();
  // The organisers' announcements: now, and every minute while the page is in view (the pages
  // that follow the league show them at once).
  showAnnouncements();
  setInterval(() => { if (document.visibilityState === 'visible' && navigator.onLine) showAnnouncements(); }, 60000);
});

// The app's files and the hunts kept for opening without a connection (sw.js).
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
