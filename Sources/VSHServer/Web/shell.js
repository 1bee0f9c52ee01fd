// What every page shares: the page's regions, the data read once (hunts), navigation, notices,
// the session guard, the hunts' schedules, the language switch, the connection and the outbox.
import { api, session, ApiError, OfflineError, privatePicture } from './api.js';
import { h, fill, plural, formatTime, formatOpening, countdown } from './dom.js';
import { t, languages, language, remember, load as loadLanguage } from './i18n.js';
import { verdictLine } from './verdict.js';
import * as outbox from './outbox.js';
import { reportTo } from './position.js';

export const main = document.getElementById('main');
const notice = document.getElementById('notice');
const connection = document.getElementById('connection');
/** What the page drawn now must undo when another is drawn (timers, event sources, watches). */
export const cleanups = [];
/** The hunt feed and hunt files, read once a visit (reset after a check-in or a sign-in). */
export const hunts = { feed: null, files: new Map() };

/** Draws the page of the address bar again (app.js listens). */
export function redraw() {
  window.dispatchEvent(new Event('vsh:render'));
}

/** Goes to another page of the app. */
export function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  redraw();
}

/** A page that ends quietly (it went elsewhere). */
export class Silent extends Error {}

export let siteTitle = 'vsh hunts';
/** The operator's title (`vsh serve --title`). */
export function setSiteTitle(title) { siteTitle = title; }

export function say(text, kind = 'info') {
  fill(notice, text ? h('p', { class: `note ${kind}` }, text) : null);
}

export function needSession() {
  const s = session();
  if (!s) {
    go(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    throw new Silent();
  }
  return s;
}


export async function feed() {
  // With the session's token: a private hunt the player joined is theirs to see.
  if (!hunts.feed) hunts.feed = await api('/v1/hunts', { auth: true });
  return hunts.feed;
}

export async function huntFile(id) {
  if (!hunts.files.has(id)) hunts.files.set(id, await api(`/v1/hunts/${encodeURIComponent(id)}`, { auth: true }));
  return hunts.files.get(id);
}

export async function findStop(id) {
  for (const hunt of await feed()) {
    const file = await huntFile(hunt.id);
    const index = file.features.findIndex((f) => f.id === id);
    if (index >= 0) return { hunt: file.hunt, state: file.state, file, feature: file.features[index], number: index + 1 };
  }
  throw new ApiError(404, 'Not found', `There is no stop "${id}".`);
}

export async function visitedStops() {
  if (!session()) return new Set();
  try {
    const mine = await api('/v1/me/checkins', { auth: true });
    return new Set(mine.filter((c) => c.state === 'accepted' && c.stop).map((c) => c.stop));
  } catch (error) {
    if (error instanceof OfflineError) return new Set();
    throw error;
  }
}

/** A hunt's or a stop's own text (`name`, `description`) in the player's language, when its file gives one. */
export function local(thing, field) {
  const translations = (thing && thing.translations) || {};
  const tag = Object.keys(translations).find((key) => key === language()) || Object.keys(translations).find((key) => key.split('-')[0] === language());
  return (tag && translations[tag][field]) || thing[field];
}

/** Stops with their names in the player's language (for maps and the verdict's next stop). */
export function localStops(features) {
  return features.map((f) => ({ ...f, properties: { ...f.properties, name: local(f.properties, 'name') } }));
}

export function difficulty(text) {
  return h('span', { class: `pill ${text}` }, t(text));
}

export function progress(visited, total, label) {
  return h('div', { class: 'progress' },
    h('progress', { max: total, value: visited, 'aria-label': label || t('{visited} of {total} stops visited', { visited, total }) }),
    h('span', {}, t('{visited} of {total} stops', { visited, total })));
}

// When a hunt opens or closes, in its own time zone. Before it opens, the check-in form is not
// offered and the page counts down (`live`), drawing itself again once the hunt opens.
export function schedule(hunt, state, { live = false } = {}) {
  const zone = hunt.timezone;
  if (state === 'upcoming' && hunt.starts_at) {
    const left = h('span', { class: 'countdown' }, countdown(hunt.starts_at));
    const note = h('p', { class: 'schedule upcoming', role: 'status' },
      t('Opens {when}', { when: formatOpening(hunt.starts_at, zone) }), live ? [` · ${t('in')} `, left] : null, `. ${t('Check-ins count from then.')}`);
    if (live) {
      const timer = setInterval(() => {
        if (!note.isConnected) { clearInterval(timer); return; }
        if (Date.now() >= new Date(hunt.starts_at).getTime()) {
          clearInterval(timer);
          hunts.feed = null;
          hunts.files.clear();
          redraw();
          return;
        }
        left.textContent = countdown(hunt.starts_at);
      }, 15000);
      cleanups.push(() => clearInterval(timer));
    }
    return note;
  }
  if (state === 'closed') {
    return h('p', { class: 'schedule closed' },
      hunt.ends_at ? t('Closed {when}. Check-ins no longer count.', { when: formatOpening(hunt.ends_at, zone) }) : t('Closed.'));
  }
  return hunt.ends_at ? h('p', { class: 'note' }, t('Open until {when}.', { when: formatTime(hunt.ends_at, zone) })) : null;
}


export async function showConnection() {
  const s = session();
  const count = s ? (await outbox.waiting().catch(() => [])).filter((x) => x.player === s.player.id).length : 0;
  const words = [];
  if (!navigator.onLine) words.push(t('You are offline.'));
  if (count) words.push(t('{checkins} waiting to be sent.', { checkins: plural(count, 'check-in') }));
  fill(connection, words.length ? h('p', {}, words.join(' ')) : null);
}

export async function flushOutbox() {
  const s = session();
  if (!s || !navigator.onLine) return;
  await outbox.flush(s.player.id, (item, answer) => {
    const verdict = answer.body && answer.body.verdict;
    say(verdict ? verdictLine(item.stopName, answer.body, item.zone) : t('Your check-in at {stop} was refused: {why}.', { stop: item.stopName, why: (answer.body && answer.body.detail) || answer.status }),
      verdict === 'accepted' ? 'good' : 'info');
    hunts.feed = null;
  }).catch(() => {});
  showConnection();
}



/** The choice of language, at the foot of the feed, the sign-in page and the profile. */
export function languageSwitch() {
  const select = h('select', { id: 'language', name: 'language' },
    Object.entries(languages).map(([code, name]) => h('option', { value: code, lang: code, selected: code === language() }, name)));
  select.addEventListener('change', async () => {
    remember(select.value);
    await loadLanguage(select.value);
    translateShell();
    redraw();
  });
  return h('p', { class: 'language' }, h('label', { for: 'language' }, t('Language')), select);
}

/** The page's own words outside `main` (the skip link, the tabs, the brand), in the language. */
export function translateShell() {
  const skip = document.querySelector('.skip');
  if (skip) skip.textContent = t('Skip to the page');
  for (const link of document.querySelectorAll('.tabs a')) {
    const words = { me: 'Profile', hunts: 'Hunts', leaderboard: 'Leaderboard' }[link.dataset.tab];
    const label = link.querySelector('span');
    if (words && label) label.textContent = t(words);
  }
  const nav = document.querySelector('.tabs');
  if (nav) nav.setAttribute('aria-label', t('Sections'));
  const brand = document.querySelector('.brand span');
  if (brand) brand.textContent = siteTitle;
}

/**
 * Follows the league's changes while the page is open: `reload` runs whenever the server's event
 * stream (`/v1/events`) says something changed, 150 ms after a change in a quiet moment and at most
 * once a second while changes keep coming (at an event's start they come many times a second, and a
 * page that waited for a quiet moment would never move). `status` shows the stream's state in
 * `liveText` words; an organiser's announcement is shown at once. The stream closes while offline
 * and when the page goes (a browser allows a few connections to a site, so only the pages that
 * follow the league hold one).
 */
export function followLeague(reload, status, liveText) {
  let source = null;
  let timer = null;
  let last = 0;
  const connect = () => {
    if (source || !navigator.onLine) return;
    source = new EventSource('/v1/events');
    source.addEventListener('open', () => { status.textContent = liveText; });
    source.addEventListener('change', () => {
      if (timer) return; // a reload is due already, and it will show this change too
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        Promise.resolve(reload()).catch(() => {});
      }, Math.max(150, last + 1000 - Date.now()));
    });
    source.addEventListener('announcement', () => { showAnnouncements(); });
    source.addEventListener('error', () => { status.textContent = t('Reconnecting…'); });
  };
  const disconnect = () => { if (source) { source.close(); source = null; } status.textContent = t('Offline'); };
  connect();
  window.addEventListener('online', connect);
  window.addEventListener('offline', disconnect);
  cleanups.push(() => {
    clearTimeout(timer);
    disconnect();
    window.removeEventListener('online', connect);
    window.removeEventListener('offline', disconnect);
  });
}

/**
 * The organisers' announcements: the ones this browser has not dismissed are shown above every
 * page until "Got it": looked for on every page, every minute while the page is in view, and at
 * once on the pages that follow the league.
 */
export async function showAnnouncements() {
  let list;
  try { list = await api('/v1/announcements', { auth: true }); } catch (_) { return; }
  const key = 'vsh.announcements.seen';
  const seen = Number(localStorage.getItem(key) || 0);
  const fresh = list.filter((a) => a.id > seen).slice(0, 3);
  let box = document.getElementById('announcements');
  if (!box) {
    box = h('div', { id: 'announcements', 'aria-live': 'assertive' });
    main.before(box);
  }
  fill(box, ...fresh.map((a) => h('div', { class: 'announcement', role: 'alert' },
    h('p', {}, h('strong', {}, `${t('Announcement')}: `), a.text),
    h('p', { class: 'muted' }, t('From {who}, {time}', { who: a.by, time: formatTime(a.at) })),
    h('button', { type: 'button', class: 'secondary', onclick: () => {
      localStorage.setItem(key, String(Math.max(seen, ...list.map((x) => x.id))));
      fill(box);
    } }, t('Got it')))));
}

/**
 * A hunt that shares players' positions with its organisers (`share_positions`): the note that
 * tells the player so, and (signed in, hunt open) the tracker's fixes sent while the page is open.
 * Null for a hunt that does not share them.
 */
export function positionSharing(hunt, state, where) {
  if (!hunt.share_positions) return null;
  if (session()) {
    cleanups.push(reportTo(hunt, state, where, (fix) => api(`/v1/hunts/${encodeURIComponent(hunt.id)}/position`, {
      method: 'PUT', auth: true, json: { lat: fix.lat, lon: fix.lon, accuracy_m: Math.round((fix.accuracy || 0) * 10) / 10 },
    })));
  }
  return h('p', { class: 'note sharing' }, t('While this hunt is open, its organisers see on their map where you were last. Your position is sent only while a page of the hunt is open and showing where you are.'));
}

/**
 * A hunt's or stop's picture: a private hunt's is fetched with the player's token (an image tag
 * cannot send it, and the server shows a private hunt's pictures only to its players).
 */
export function huntImage(url, hunt, attrs = {}) {
  if (hunt.visibility !== 'private') return h('img', { src: url, ...attrs });
  const img = h('img', attrs);
  privatePicture(url).then((blob) => {
    img.src = blob;
    cleanups.push(() => URL.revokeObjectURL(blob));
  }).catch(() => img.remove());
  return img;
}
