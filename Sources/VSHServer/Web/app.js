// The vsh web app: one module, the pages players and organisers open, drawn from the /v1 API (/openapi.json).
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from './api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from './dom.js';
import * as position from './position.js';
import { t, languages, language, remember, load as loadLanguage } from './i18n.js';
import { verdictView, verdictLine } from './verdict.js';
import { drawMap } from './map.js';
import * as outbox from './outbox.js';

const main = document.getElementById('main');
const notice = document.getElementById('notice');
const connection = document.getElementById('connection');
let cleanups = [];
const hunts = { feed: null, files: new Map() };

// ---------------------------------------------------------------- routing

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
];

export function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

async function render() {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
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

function showWho() {
  const s = session();
  const who = document.getElementById('who');
  if (s) fill(who, h('a', { href: '/me' }, s.player.username));
  else fill(who, h('a', { href: '/signin' }, t('Sign in')));
}

function say(text, kind = 'info') {
  fill(notice, text ? h('p', { class: `note ${kind}` }, text) : null);
}

function needSession() {
  const s = session();
  if (!s) {
    go(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    throw new Silent();
  }
  return s;
}
class Silent extends Error {}

// ---------------------------------------------------------------- shared data

async function feed() {
  if (!hunts.feed) hunts.feed = await api('/v1/hunts');
  return hunts.feed;
}

async function huntFile(id) {
  if (!hunts.files.has(id)) hunts.files.set(id, await api(`/v1/hunts/${encodeURIComponent(id)}`));
  return hunts.files.get(id);
}

async function findStop(id) {
  for (const hunt of await feed()) {
    const file = await huntFile(hunt.id);
    const index = file.features.findIndex((f) => f.id === id);
    if (index >= 0) return { hunt: file.hunt, state: file.state, file, feature: file.features[index], number: index + 1 };
  }
  throw new ApiError(404, 'Not found', `There is no stop "${id}".`);
}

async function visitedStops() {
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
function local(thing, field) {
  const translations = (thing && thing.translations) || {};
  const tag = Object.keys(translations).find((key) => key === language()) || Object.keys(translations).find((key) => key.split('-')[0] === language());
  return (tag && translations[tag][field]) || thing[field];
}

/** Stops with their names in the player's language (for maps and the verdict's next stop). */
function localStops(features) {
  return features.map((f) => ({ ...f, properties: { ...f.properties, name: local(f.properties, 'name') } }));
}

function difficulty(text) {
  return h('span', { class: `pill ${text}` }, t(text));
}

function progress(visited, total, label) {
  return h('div', { class: 'progress' },
    h('progress', { max: total, value: visited, 'aria-label': label || t('{visited} of {total} stops visited', { visited, total }) }),
    h('span', {}, t('{visited} of {total} stops', { visited, total })));
}

// ---------------------------------------------------------------- hunt feed

async function feedPage() {
  const s = session();
  const list = await feed();
  const files = await Promise.all(list.map((hunt) => huntFile(hunt.id)));
  let mine = null;
  if (s) {
    try { mine = await api(`/v1/players/${encodeURIComponent(s.player.username)}`); } catch (_) { mine = null; }
  }
  const progressOf = new Map((mine ? mine.hunts : []).map((p) => [p.hunt, p]));
  const featured = files.flatMap((file) => file.features.filter((f) => f.properties.featured).map((f) => ({ f, hunt: file.hunt })));
  const named = (hunt) => local(hunt, 'name');
  const cards = files.map((file, i) => {
    const hunt = list[i];
    const mineHere = progressOf.get(hunt.id);
    const art = h('div', { class: 'card-art' });
    if (hunt.image) art.append(h('img', { src: `/v1/hunts/${hunt.id}/image`, alt: '', loading: 'lazy' }));
    else drawMap(art, localStops(file.features), { label: t('Map of the {stops} of {hunt}', { stops: plural(file.features.length, 'stop'), hunt: named(hunt) }) });
    return h('li', { class: 'card' },
      h('a', { class: 'card-link', href: `/hunts/${hunt.id}` }, art,
        h('div', { class: 'card-body' },
          h('h2', {}, named(hunt)),
          h('p', { class: 'facts' }, difficulty(hunt.difficulty), ` ${plural(hunt.stops, 'stop')} · ${t('{n} points', { n: number(hunt.total_points) })}`),
          h('p', { class: 'description' }, local(hunt, 'description')),
          schedule(hunt, hunt.state),
          mineHere ? (mineHere.completed_at ? h('p', { class: 'done' }, t('✓ Completed')) : progress(mineHere.visited, mineHere.total)) : null)));
  });
  const onboarding = s && !localStorage.getItem(`vsh.welcomed.${s.player.id}`);
  fill(main,
    h('h1', {}, t('Hunts')),
    onboarding ? h('section', { class: 'welcome', 'aria-labelledby': 'welcome-title' },
      h('h2', { id: 'welcome-title' }, t('Welcome, {name}!', { name: s.player.username })),
      h('ol', {},
        h('li', {}, t('Pick a hunt below and open its map.')),
        h('li', {}, t('Walk to a stop: the map shows where you are once you share your position.')),
        h('li', {}, t('Take a picture there and check in. Points, badges and the leaderboard follow.'))),
      h('p', {}, t('No signal inside? Check in anyway: the app keeps it and sends it when you are back online.')),
      h('button', { type: 'button', onclick: (e) => { localStorage.setItem(`vsh.welcomed.${s.player.id}`, '1'); e.target.closest('section').remove(); } }, t('Got it'))) : null,
    !s ? h('p', { class: 'intro' }, t('Walk the city, find each stop, take a picture there.'), ' ', h('a', { href: '/signup' }, t('Create an account')), ` ${t('or')} `, h('a', { href: '/signin' }, t('sign in')), ` ${t('to play.')}`) : null,
    featured.length ? h('section', { class: 'featured', 'aria-labelledby': 'featured-title' },
      h('h2', { id: 'featured-title' }, t('Featured stops')),
      h('ul', {}, featured.map(({ f, hunt }) => h('li', {},
        h('a', { href: `/stops/${f.id}` }, local(f.properties, 'name')), ` · ${named(hunt)}`,
        f.properties.sponsor ? [' ', h('span', { class: 'sponsor' }, t('Sponsored by {sponsor}', { sponsor: f.properties.sponsor }))] : null)))) : null,
    h('ul', { class: 'cards' }, cards),
    languageSwitch());
}

// When a hunt opens or closes, in its own time zone. Before it opens, the check-in form is not
// offered and the page counts down (`live`), drawing itself again once the hunt opens.
function schedule(hunt, state, { live = false } = {}) {
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
          render();
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

// ---------------------------------------------------------------- a hunt

async function huntPage(id) {
  const file = await huntFile(id);
  const hunt = file.hunt;
  const visited = await visitedStops();
  const mapBox = h('div', { class: 'map-box' });
  const rows = new Map();
  const list = h('ol', { class: 'stops' }, file.features.map((f) => {
    const distance = h('span', { class: 'distance' });
    rows.set(f.id, distance);
    const done = visited.has(f.id);
    return h('li', { class: done ? 'visited' : '' },
      h('a', { href: `/stops/${f.id}` }, h('span', { class: 'stop-name' }, local(f.properties, 'name'))),
      h('span', { class: 'stop-facts' }, t('{n} points', { n: number(f.properties.points) }), done ? h('span', { class: 'tick' }, ` ${t('✓ visited')}`) : null, ' ', distance));
  }));
  const share = h('button', { type: 'button', class: 'secondary', onclick: () => start() }, t('Show where I am'));
  const status = h('p', { class: 'position-status', role: 'status' });
  fill(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/' }, t('Hunts'))),
    h('h1', {}, local(hunt, 'name')),
    h('p', { class: 'facts' }, difficulty(hunt.difficulty), ` ${plural(file.features.length, 'stop')} · ${visited.size ? `${t('{n} visited', { n: [...visited].filter((s) => rows.has(s)).length })} · ` : ''}${t('completion bonus {n} points', { n: number(hunt.bonus_points) })}`),
    h('p', {}, local(hunt, 'description')),
    hunt.ordered ? h('p', { class: 'note' }, t('Visit the stops in the order listed.')) : null,
    schedule(hunt, file.state, { live: true }),
    mapBox, h('div', { class: 'row' }, share, status),
    h('h2', {}, t('Stops')), list);
  const map = await drawMap(mapBox, localStops(file.features), { visited, link: true, label: t('Map of the stops of {hunt}', { hunt: local(hunt, 'name') }) });
  const where = position.tracker('geolocation' in navigator ? navigator.geolocation : null);
  cleanups.push(() => where.stop());
  where.onChange((w) => {
    map.setPosition(w.fix);
    status.textContent = w.fix ? t('Your position, within {m} m.', { m: Math.round(w.fix.accuracy) })
      : w.problem ? t('Your position is not available: location is off or blocked for this site.') : t('Finding you…');
    for (const f of file.features) rows.get(f.id).textContent = w.fix ? formatDistance(distanceTo(w.fix, f.geometry)) : '';
  });
  function start() {
    share.remove();
    where.start();
  }
  if (await position.shared()) start();
}

// ---------------------------------------------------------------- a stop and its check-in

async function stopPage(id) {
  const { hunt, state, file, feature, number: stopNumber } = await findStop(id);
  const s = session();
  const visited = await visitedStops();
  const p = feature.properties;
  const distance = h('p', { class: 'distance', role: 'status' });
  const mapBox = h('div', { class: 'map-box small' });
  const where = position.tracker('geolocation' in navigator ? navigator.geolocation : null);
  cleanups.push(() => where.stop());
  const open = !state || state === 'open';
  fill(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/' }, t('Hunts')), ' › ', h('a', { href: `/hunts/${hunt.id}` }, local(hunt, 'name'))),
    h('h1', {}, local(p, 'name')),
    h('p', { class: 'facts' }, t('Stop {n} · {points} points', { n: stopNumber, points: number(p.points) }), visited.has(id) ? h('span', { class: 'tick' }, ` · ${t('✓ visited')}`) : null),
    p.sponsor ? h('p', { class: 'sponsor' }, t('Sponsored by {sponsor}', { sponsor: p.sponsor })) : null,
    p.image ? h('img', { class: 'stop-image', src: `/v1/stops/${feature.id}/image`, alt: local(p, 'name') }) : null,
    h('p', {}, local(p, 'description')),
    mapBox, distance,
    !open ? schedule(hunt, state, { live: true })
      : s ? checkInForm(hunt, file, feature, where, visited) : h('p', { class: 'note' }, h('a', { href: `/signin?next=/stops/${id}` }, t('Sign in')), ` ${t('to check in here.')}`));
  const map = await drawMap(mapBox, localStops([feature]), { visited, label: t('Map of {stop}', { stop: local(p, 'name') }), numbers: new Map([[id, stopNumber]]) });
  where.onChange((w) => {
    map.setPosition(w.fix);
    distance.textContent = w.fix ? formatDistance(distanceTo(w.fix, feature.geometry)) : '';
  });
  // Position first: a player who shared it before is followed at once; one who has not is asked
  // with their first tap (here, or when they pick the photo).
  if (await position.shared()) where.start();
  else if (!where.started) distance.append(h('button', { type: 'button', class: 'secondary', onclick: (e) => { e.target.remove(); where.start(); } }, t('How far is it?')));
}

// How to let the site read the position, in the words of the player's browser.
const locationSteps = {
  ios: ['Open Settings › Privacy & Security › Location Services and turn it on.', 'In the same list, open your browser (Safari Websites for Safari) and choose “While Using the App”.', 'Come back here and tap Try again (reload the page if it asks nothing).'],
  android: ['Swipe down from the top of the screen and turn Location on.', 'Tap the icon left of the address bar › Permissions › Location › Allow.', 'Tap Try again.'],
  samsung: ['Swipe down from the top of the screen and turn Location on.', 'Tap the lock in the address bar › Permissions, and allow Location.', 'Tap Try again.'],
  firefox: ['Turn on your device\'s location.', 'Tap the lock in the address bar and remove the block on “Access your location”.', 'Tap Try again and choose Allow.'],
  safari: ['Open Safari › Settings for This Website (or Settings › Websites › Location).', 'Choose Allow for this site.', 'Tap Try again.'],
  edge: ['Click the lock left of the address bar › Permissions for this site › Location: Allow.', 'Click Try again.'],
  chrome: ['Click or tap the icon left of the address bar › Site settings › Location: Allow.', 'Make sure your device\'s location is on.', 'Tap Try again.'],
};

function locationHelp(problem, retry) {
  const kind = position.browserKind();
  const title = problem === 'denied' ? t('Your position is blocked for this site')
    : problem === 'unsupported' ? t('This browser cannot give your position')
      : t('Your phone could not find where you are');
  const steps = problem === 'denied' ? locationSteps[kind]
    : problem === 'unsupported' ? ['Open this page in your phone\'s own browser (Safari or Chrome).']
      : ['Turn on Location (GPS) and Wi-Fi: both help the phone find you.', 'Step outside or near a window, away from tall buildings.', 'Tap Try again.'];
  return h('div', { class: 'location-help', role: 'alert' },
    h('h3', {}, title),
    h('p', {}, t('A check-in needs to know you are at the stop. Nothing was sent, and your photo still counts when you try again.')),
    h('ol', {}, steps.map((step) => h('li', {}, t(step)))),
    h('button', { type: 'button', class: 'retry', onclick: retry }, t('Try again')));
}

function checkInForm(hunt, collection, feature, where, visited) {
  const s = session();
  const photo = h('input', { type: 'file', id: 'photo', name: 'photo', accept: 'image/*', capture: 'environment', required: true, 'aria-describedby': 'photo-help photo-error' });
  const preview = h('img', { class: 'preview', alt: t('The photo you picked'), hidden: true });
  const bar = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': t('Upload') });
  const error = h('p', { id: 'photo-error', class: 'field-error' });
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, t('Check in here'));
  const fixLine = h('p', { id: 'photo-help', class: 'help fix-state' });
  let sending = false;
  let photoURL = null;
  // The button and the line under the photo say what the check-in waits for.
  const show = () => {
    if (sending) return;
    const fresh = where.fresh();
    if (fresh) fixLine.textContent = t('✓ Your position is ready (within {m} m): it goes with the photo.', { m: Math.round(fresh.accuracy) });
    else if (where.problem) fixLine.textContent = t('Your position is not available: see below how to share it.');
    else if (where.started) fixLine.textContent = t('Finding your position…');
    else fixLine.textContent = t('Your position goes with the photo: the browser asks you to share it.');
    button.textContent = where.started && !fresh && !where.problem && photo.files[0] ? t('Waiting for your position…') : t('Check in here');
    // Position first: as soon as the browser says no, the page says how to turn it on.
    if (where.problem && !result.querySelector('.location-help')) explain();
    else if (fresh && result.querySelector('.location-help')) fill(result);
  };
  const explain = () => {
    fill(result, locationHelp(where.problem || 'timeout', () => {
      fill(result);
      where.restart();
      if (photo.files[0]) submit();
    }));
    result.querySelector('.location-help').scrollIntoView({ block: 'nearest' });
  };
  where.onChange(show);
  photo.addEventListener('change', () => {
    error.textContent = '';
    const file = photo.files[0];
    if (file) {
      photoURL = URL.createObjectURL(file);
      preview.src = photoURL;
      preview.hidden = false;
      where.start();
    }
    show();
  });
  async function submit() {
    const file = photo.files[0];
    if (!file) { error.textContent = t('Take or pick a photo of the stop first.'); photo.setAttribute('aria-invalid', 'true'); photo.focus(); return; }
    photo.removeAttribute('aria-invalid');
    button.disabled = true;
    sending = true;
    try {
      let fix = where.fresh();
      if (!fix && !where.problem) {
        button.textContent = t('Waiting for your position…');
        fill(result, h('p', { role: 'status' }, t('Waiting for your position…')));
        fix = await where.next(20000);
      }
      if (!fix && !(await position.photoHasGPS(file))) {
        // Without a position nothing can place the player: nothing is sent, the photo stays theirs.
        explain();
        return;
      }
      const item = {
        key: newKey(), player: s.player.id, hunt: hunt.id, stop: feature.id, stopName: local(feature.properties, 'name'),
        photo: file, photoName: file.name || 'photo.jpg', lat: fix ? fix.lat : null, lon: fix ? fix.lon : null,
        accuracy: fix ? fix.accuracy : null, fixTime: fix ? new Date(fix.time).toISOString() : null, created: Date.now(),
        zone: hunt.timezone,
      };
      try {
        if (!navigator.onLine) throw new OfflineError('offline');
        button.textContent = t('Sending…');
        fill(result, h('p', { role: 'status' }, fix ? t('Sending…') : t('Sending: the photo\'s own GPS places you…')));
        bar.hidden = false;
        const answer = await sendCheckIn(item, (fraction) => { bar.value = fraction; });
        bar.hidden = true;
        if (answer.status === 201 || answer.status === 200) {
          hunts.feed = null;
          // The stop and the next ones by their names in the player's language.
          const body = { ...answer.body, stop_name: answer.body.stop === feature.id ? local(feature.properties, 'name') : answer.body.stop_name };
          const done = new Set(visited);
          if (body.verdict === 'accepted' && body.stop) done.add(body.stop);
          let badges = new Map();
          if ((body.awards || []).some((a) => a.kind === 'badge')) {
            try {
              const profile = await api(`/v1/players/${encodeURIComponent(s.player.username)}`);
              badges = new Map(profile.badges.map((b) => [b.badge, b.name]));
            } catch (_) { /* the ids are shown instead */ }
          }
          fill(result, verdictView(body, { hunt: { ...hunt, name: local(hunt, 'name') }, features: localStops(collection.features), visited: done, position: fix, photo: photoURL, badges, player: s.player.username }));
          // Accepted: the stop is done, and the verdict takes the form's place.
          if (body.verdict === 'accepted') for (const el of controls) el.hidden = true;
          result.querySelector('.verdict').focus();
        } else {
          fill(result, h('p', { class: 'error' }, (answer.body && answer.body.detail) || t('The server answered {status}.', { status: answer.status })));
        }
      } catch (err) {
        bar.hidden = true;
        if (!(err instanceof OfflineError)) throw err;
        await outbox.keep(item);
        fill(result, h('p', { class: 'note waiting' }, t('No connection: your check-in is kept on this phone and will be sent when you are back online.')));
        showConnection();
      }
    } finally {
      sending = false;
      button.disabled = false;
      show();
    }
  }
  const label = h('label', { for: 'photo' }, t('Photo of the stop'));
  const controls = [label, photo, fixLine, error, preview, button];
  const form = h('form', { class: 'checkin', novalidate: true, onsubmit: (event) => { event.preventDefault(); submit(); } },
    h('h2', {}, t('Check in')), label, photo, fixLine, error, preview, button, bar, result);
  show();
  return form;
}

// ---------------------------------------------------------------- leaderboard

async function leaderboardPage() {
  const params = new URLSearchParams(location.search);
  const list = await feed();
  const hunt = params.get('hunt') || '';
  const window_ = params.get('window') || 'all';
  const huntSelect = h('select', { id: 'board-hunt', name: 'hunt' },
    h('option', { value: '' }, t('All hunts')), list.map((x) => h('option', { value: x.id, selected: x.id === hunt }, local(x, 'name'))));
  const windowSelect = h('select', { id: 'board-window', name: 'window' },
    [['all', 'All time'], ['today', 'Today'], ['week', 'Last 7 days']].map(([v, words]) => h('option', { value: v, selected: v === window_ }, t(words))));
  const change = () => {
    const q = new URLSearchParams();
    if (huntSelect.value) q.set('hunt', huntSelect.value);
    if (windowSelect.value !== 'all') q.set('window', windowSelect.value);
    go(`/leaderboard${q.toString() ? '?' + q : ''}`, { replace: true });
  };
  huntSelect.addEventListener('change', change);
  windowSelect.addEventListener('change', change);
  const live = h('span', { class: 'live', role: 'status' });
  const table = h('div', { class: 'board' });
  fill(main, h('h1', {}, t('Leaderboard')),
    h('form', { class: 'filters', onsubmit: (e) => e.preventDefault() },
      h('label', { for: 'board-hunt' }, t('Hunt')), huntSelect, h('label', { for: 'board-window' }, t('When')), windowSelect),
    live, table);
  const q = new URLSearchParams({ limit: '100' });
  if (hunt) q.set('hunt', hunt);
  if (window_ === 'today') { const d = new Date(); d.setHours(0, 0, 0, 0); q.set('since', d.toISOString().replace(/\.\d+Z$/, 'Z')); }
  if (window_ === 'week') q.set('since', new Date(Date.now() - 7 * 86400000).toISOString().replace(/\.\d+Z$/, 'Z'));
  const me = session();
  async function load() {
    const rows = await api(`/v1/leaderboard?${q}`);
    fill(table, rows.length ? h('table', {},
      h('caption', { class: 'visually-hidden' }, t('Players by points')),
      h('thead', {}, h('tr', {}, ['Rank', 'Player', 'Points', 'Hunts', 'Stops', 'Badges'].map((words) => h('th', { scope: 'col' }, t(words))))),
      h('tbody', {}, rows.map((r) => h('tr', { class: me && r.player_id === me.player.id ? 'me' : '', 'data-player': r.player },
        h('td', {}, String(r.rank)),
        h('th', { scope: 'row' }, h('a', { href: `/players/${encodeURIComponent(r.player)}`, class: 'who' }, avatar({ name: r.player, avatar_url: r.avatar_url }, 32), h('span', {}, r.player))),
        h('td', { class: 'points' }, number(r.points)),
        h('td', {}, String(r.hunts_completed)), h('td', {}, String(r.stops_visited)), h('td', {}, String(r.badges))))))
      : h('p', {}, t('No scores yet: be the first to check in.')));
  }
  await load();
  // Live: the server says when the league changed; the board is read again.
  let source = null;
  let timer = null;
  const connect = () => {
    if (source || !navigator.onLine) return;
    source = new EventSource('/v1/events');
    source.addEventListener('open', () => { live.textContent = t('● Live'); });
    source.addEventListener('change', () => {
      clearTimeout(timer);
      timer = setTimeout(() => load().catch(() => {}), 150);
    });
    source.addEventListener('error', () => { live.textContent = t('Reconnecting…'); });
  };
  const disconnect = () => { if (source) { source.close(); source = null; } live.textContent = t('Offline'); };
  connect();
  window.addEventListener('online', connect);
  window.addEventListener('offline', disconnect);
  cleanups.push(() => { clearTimeout(timer); disconnect(); window.removeEventListener('online', connect); window.removeEventListener('offline', disconnect); });
}

// ---------------------------------------------------------------- profiles

function avatar(profile, size = 96) {
  const small = size < 96 ? ' small' : '';
  // Beside a name (the leaderboard), the picture says nothing the name does not: no alt text.
  if (profile.avatar_url) return h('img', { class: `avatar${small}`, src: profile.avatar_url, alt: small ? '' : t('{name}\'s picture', { name: profile.name }), width: size, height: size, loading: 'lazy' });
  // Small initials are drawn from an attribute, so the row's text stays the name alone.
  if (small) return h('span', { class: 'avatar initials small', 'aria-hidden': 'true', 'data-initials': initials(profile.name) });
  return h('span', { class: 'avatar initials', 'aria-hidden': 'true' }, initials(profile.name));
}

const stateWords = { accepted: '✓ accepted', pending: '⌛ waiting', rejected: '✗ not counted', revoked: '✗ revoked', overturned: '✗ overturned' };

/** A check-in's state as a coloured label at the row's end. */
function stateChip(state) {
  return h('span', { class: `state ${state}` }, stateWords[state] ? t(stateWords[state]) : state);
}

function profileBody(profile) {
  return [
    h('div', { class: 'stats' },
      h('p', {}, h('strong', {}, number(profile.points)), ` ${t('points')}`),
      h('p', {}, h('strong', {}, number(profile.stops_visited)), ` ${t('stops')}`),
      h('p', {}, h('strong', {}, number(profile.hunts_completed)), ` ${t('hunts')}`)),
    h('h2', {}, t('Hunts')),
    profile.hunts.length ? h('ul', { class: 'progress-list' }, profile.hunts.map((x) => h('li', {},
      h('a', { href: `/hunts/${x.hunt}` }, x.name),
      x.completed_at ? h('span', {}, ` ${t('✓ completed')} · `, h('a', { href: `/share/${encodeURIComponent(profile.name)}/${x.hunt}` }, t('share the collage')))
        : progress(x.visited, x.total, `${x.name}: ${t('{visited} of {total} stops', { visited: x.visited, total: x.total })}`))))
      : h('p', {}, t('No hunt started yet.')),
    h('h2', {}, t('Badges')),
    profile.badges.length ? h('ul', { class: 'badges' }, profile.badges.map((b) => h('li', {}, h('span', { class: 'badge-icon', 'aria-hidden': 'true' }, '★'), ` ${b.name}`, h('span', { class: 'muted' }, ` +${b.points}`))))
      : h('p', {}, t('No badges yet.')),
  ];
}

async function playerPage(name) {
  const profile = await api(`/v1/players/${encodeURIComponent(name)}`);
  fill(main,
    h('div', { class: 'profile-head' }, avatar(profile), h('h1', {}, profile.name)),
    profileBody(profile),
    h('h2', {}, t('Recent check-ins')),
    profile.recent.length ? h('ul', { class: 'recent' }, profile.recent.map((c) => h('li', { class: c.state },
      h('span', { class: 'what' }, h('span', { class: 'where' }, c.stop_name || c.stop || t('Away from every stop')),
        h('span', { class: 'when muted' }, `${formatTime(c.received_at)}${c.points ? ` · ${t('+{n} points', { n: number(c.points) })}` : ''}`)), stateChip(c.state))))
      : h('p', {}, t('None yet.')));
}

async function mePage() {
  const s = needSession();
  const me = await api('/v1/me', { auth: true });
  const profile = await api(`/v1/players/${encodeURIComponent(me.name)}`);
  const mine = await api('/v1/me/checkins', { auth: true });
  const waiting = (await outbox.waiting()).filter((x) => x.player === s.player.id);
  const pictureInput = h('input', { type: 'file', id: 'avatar', accept: 'image/*', 'aria-describedby': 'avatar-error' });
  const pictureError = h('p', { id: 'avatar-error', class: 'field-error' });
  const head = h('div', { class: 'profile-head' }, avatar(profile), h('h1', {}, me.name));
  pictureInput.addEventListener('change', async () => {
    const file = pictureInput.files[0];
    if (!file) return;
    pictureError.textContent = '';
    try {
      await api('/v1/me/avatar', { method: 'PUT', auth: true, body: await asJPEG(file), headers: { 'Content-Type': 'image/jpeg' } });
      say(t('Your picture is updated.'));
      render();
    } catch (error) {
      pictureError.textContent = error instanceof OfflineError ? t('No connection: try again when you are online.') : error.message;
    }
  });
  const list = h('ul', { class: 'recent' });
  for (const c of mine.slice(0, 20)) {
    const img = c.has_photo ? h('img', { class: 'thumb', alt: t('Photo of the check-in at {stop}', { stop: c.stop_name || t('no stop') }), width: 64, height: 64 }) : h('span', { class: 'thumb none', 'aria-hidden': 'true' }, '⌖');
    if (c.has_photo) privatePicture(`/v1/checkins/${c.id}/photo`).then((url) => { img.src = url; }).catch(() => {});
    list.append(h('li', { class: c.state }, img, h('span', { class: 'what' }, h('span', { class: 'where' }, c.stop_name || t('Away from every stop')),
      h('span', { class: 'when muted' }, `${formatTime(c.received_at)}${c.points ? ` · ${t('+{n} points', { n: number(c.points) })}` : ''}`),
      c.reason ? h('span', { class: 'reason' }, t('The moderator said: “{reason}”', { reason: c.reason })) : null), stateChip(c.state)));
  }
  fill(main, head,
    h('p', { class: 'muted' }, me.email ? `${t('Signed in')} · ${me.email}` : t('Signed in'), me.role === 'moderator' ? ` · ${t('moderator')}` : ''),
    h('div', { class: 'row' },
      h('label', { for: 'avatar', class: 'button secondary' }, t('Change picture')), pictureInput,
      me.role === 'moderator' ? h('a', { class: 'button secondary', href: '/review' }, t('Review check-ins')) : null,
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, t('Sign out'))),
    pictureError,
    waiting.length ? h('section', { class: 'waiting' }, h('h2', {}, t('Waiting to be sent')),
      h('ul', {}, waiting.map((x) => h('li', {}, `${x.stopName} · ${t('taken {when}', { when: formatTime(new Date(x.created).toISOString()) })}`)))) : null,
    profileBody(profile),
    h('h2', {}, t('My check-ins')), mine.length ? list : h('p', {}, t('None yet: open a hunt and walk to a stop.')),
    languageSwitch());
}

/** Any picture the browser can show, as a JPEG of at most 1024 px (the server keeps JPEG only). */
async function asJPEG(file) {
  if (file.type === 'image/jpeg') return file;
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, 1024 / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
}

async function signOut() {
  try { await api('/v1/sessions/current', { method: 'DELETE', auth: true }); } catch (_) { /* signed out here anyway */ }
  clearSession();
  say(t('You are signed out.'));
  go('/');
}

// ---------------------------------------------------------------- accounts

function field(id, label, attrs) {
  const input = h('input', { id, name: id, ...attrs, 'aria-describedby': `${id}-error` });
  return { input, error: h('p', { id: `${id}-error`, class: 'field-error' }), row: null };
}

function accountForm({ title, fields, submit, action, footer }) {
  const formError = h('p', { class: 'field-error form-error', role: 'alert' });
  const made = fields.map(([id, label, attrs]) => ({ id, label, ...field(id, label, attrs) }));
  const button = h('button', { type: 'submit' }, submit);
  const form = h('form', { class: 'account', novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    formError.textContent = '';
    for (const f of made) { f.error.textContent = ''; f.input.removeAttribute('aria-invalid'); }
    const missing = made.find((f) => f.input.required && !f.input.value.trim());
    if (missing) return mark(missing, t('Enter your {field}.', { field: missing.label.toLowerCase() }));
    const values = Object.fromEntries(made.map((f) => [f.id, f.input.value]));
    button.disabled = true;
    try {
      await action(values);
    } catch (error) {
      if (error instanceof OfflineError) formError.textContent = t('No connection: try again when you are online.');
      else if (error instanceof ApiError) {
        const target = error.status === 409 ? made.find((f) => f.id === 'username')
          : made.find((f) => (error.detail || '').toLowerCase().includes(f.id === 'username' ? 'name' : f.id));
        if (target && error.status !== 401) mark(target, error.message);
        else formError.textContent = error.status === 401 ? t('That name and password do not match.') : error.message;
      } else throw error;
    } finally {
      button.disabled = false;
    }
  } },
  made.map((f) => h('div', { class: 'field' }, h('label', { for: f.id }, f.label), f.input, f.error)),
  formError, button);
  function mark(f, text) {
    f.error.textContent = text;
    f.input.setAttribute('aria-invalid', 'true');
    f.input.focus();
  }
  fill(main, h('h1', {}, title), form, footer);
}

function afterSignIn(answer) {
  setSession({ token: answer.token, player: answer.player, expires_at: answer.expires_at || null });
  hunts.feed = null;
  const next = new URLSearchParams(location.search).get('next');
  go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
  flushOutbox();
}

async function signUpPage() {
  accountForm({
    title: t('Create an account'), submit: t('Create account'),
    fields: [
      ['username', t('Name'), { autocomplete: 'username', required: true, maxlength: 64, autocapitalize: 'words', spellcheck: 'false' }],
      ['email', t('Email'), { type: 'email', autocomplete: 'email', required: true, inputmode: 'email' }],
      ['password', t('Password'), { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }],
    ],
    action: async (v) => afterSignIn(await api('/v1/accounts', { method: 'POST', json: { username: v.username.trim(), email: v.email.trim(), password: v.password } })),
    footer: h('p', {}, `${t('Already playing?')} `, h('a', { href: `/signin${location.search}` }, t('Sign in'))),
  });
}

async function signInPage() {
  const resetEmail = h('input', { type: 'email', id: 'reset-email', autocomplete: 'email', 'aria-describedby': 'reset-status' });
  const resetStatus = h('p', { id: 'reset-status', role: 'status' });
  const reset = h('details', { class: 'reset' }, h('summary', {}, t('Forgot your password?')),
    h('form', { novalidate: true, onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/v1/password-resets', { method: 'POST', json: { email: resetEmail.value.trim() } });
        resetStatus.textContent = t('If a player has this address, a link to choose a new password is on its way.');
      } catch (error) {
        resetStatus.textContent = error instanceof ApiError && error.status === 503 ? t('This server sends no e-mail: ask the organiser.') : error.message;
      }
    } }, h('label', { for: 'reset-email' }, t('Email')), resetEmail, h('button', { type: 'submit', class: 'secondary' }, t('Send a link')), resetStatus));
  accountForm({
    title: t('Sign in'), submit: t('Sign in'),
    fields: [
      ['username', t('Name or e-mail address'), { autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' }],
      ['password', t('Password'), { type: 'password', autocomplete: 'current-password', required: true }],
    ],
    action: async (v) => afterSignIn(await api('/v1/sessions', { method: 'POST', json: { username: v.username.trim(), password: v.password } })),
    footer: [h('p', {}, `${t('New here?')} `, h('a', { href: `/signup${location.search}` }, t('Create an account'))), reset, languageSwitch()],
  });
}

// The page the reset e-mail links to: the token from the link, a new password, then sign in.
// The token leaves the address bar at once (it would stay in the history and in shared screens).
let resetToken = null;
async function resetPasswordPage() {
  const fromLink = new URLSearchParams(location.search).get('token');
  if (fromLink) {
    resetToken = fromLink;
    history.replaceState(null, '', '/reset-password');
  }
  if (!resetToken) {
    fill(main, h('h1', {}, t('Choose a new password')),
      h('p', { class: 'note' }, `${t('Open the link from the e-mail we sent you.')} `, h('a', { href: '/signin' }, t('Ask for a new one')), ` ${t('if it is lost.')}`));
    return;
  }
  accountForm({
    title: t('Choose a new password'), submit: t('Save the new password'),
    fields: [['password', t('New password'), { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }]],
    action: async (v) => {
      try {
        await api(`/v1/password-resets/${encodeURIComponent(resetToken)}`, { method: 'POST', json: { password: v.password } });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          resetToken = null;
          throw new ApiError(404, t('Not found'), t('This link was used already or has expired: ask for a new one from the sign-in page.'));
        }
        throw error;
      }
      resetToken = null;
      clearSession();
      fill(main, h('h1', {}, t('Password changed')),
        h('p', { role: 'status' }, t('Your new password is set, and every device you were signed in on is signed out.')),
        h('p', {}, h('a', { href: '/signin', class: 'button' }, t('Sign in'))));
    },
    footer: h('p', { class: 'note' }, t('At least 8 characters. The link works once.')),
  });
}

// ---------------------------------------------------------------- moderation

async function reviewPage() {
  needSession();
  const me = await api('/v1/me', { auth: true });
  if (me.role !== 'moderator') throw new ApiError(403, t('Forbidden'), t('Only moderators review check-ins.'));
  const list = h('ul', { class: 'reviews' });
  const count = h('p', { class: 'muted review-count', role: 'status' });
  const live = h('span', { class: 'live', role: 'status' });
  // The count is always the cards on the page: a decision or a change elsewhere redraws it.
  const recount = () => {
    const n = list.querySelectorAll('li.review').length;
    count.textContent = n ? t('{checkins} waiting, oldest first.', { checkins: plural(n, 'check-in') }) : t('Nothing to review.');
  };
  fill(main, h('h1', {}, t('Review check-ins')), live, count, list);
  let loading = Promise.resolve();
  // New check-ins appear and ones decided elsewhere (another moderator, the shell) go, without a reload.
  const load = () => {
    loading = loading.then(async () => {
      const pending = await api('/v1/reviews', { auth: true });
      const ids = new Set(pending.map((item) => String(item.id)));
      for (const card of list.querySelectorAll('li.review')) if (!ids.has(card.dataset.checkin)) card.remove();
      for (const item of pending) {
        if (decided.has(item.id) || list.querySelector(`li.review[data-checkin="${item.id}"]`)) continue;
        list.append(await reviewCard(item, recount));
      }
      recount();
    }).catch(() => {});
    return loading;
  };
  await load();
  let source = null;
  let timer = null;
  const connect = () => {
    if (source || !navigator.onLine) return;
    source = new EventSource('/v1/events');
    source.addEventListener('open', () => { live.textContent = t('● Live: new check-ins appear here'); });
    source.addEventListener('change', () => { clearTimeout(timer); timer = setTimeout(load, 150); });
    source.addEventListener('error', () => { live.textContent = t('Reconnecting…'); });
  };
  const disconnect = () => { if (source) { source.close(); source = null; } live.textContent = t('Offline'); };
  connect();
  window.addEventListener('online', connect);
  window.addEventListener('offline', disconnect);
  cleanups.push(() => { clearTimeout(timer); disconnect(); window.removeEventListener('online', connect); window.removeEventListener('offline', disconnect); });
}

/** How long after its fix a check-in arrived, when that is more than two minutes (a phone offline). */
function lateness(item) {
  if (!item.fix_time) return null;
  const minutes = Math.round((Date.parse(item.received_at) - Date.parse(item.fix_time)) / 60000);
  if (!(minutes >= 2)) return null;
  const words = minutes < 120 ? plural(minutes, 'minute') : plural(Math.round(minutes / 60), 'hour');
  return h('p', { class: 'late' }, t('Taken {time} before it arrived (sent late, perhaps from offline).', { time: words }));
}

// Check-ins decided on this page: a list read while the decision was on its way still holds them.
const decided = new Set();

async function reviewCard(item, recount = () => {}) {
  const photo = h('div', { class: 'review-photo' });
  const mapBox = h('div', { class: 'map-box small' });
  const reason = h('input', { id: `reason-${item.id}`, name: 'reason', maxlength: 500, 'aria-describedby': `reason-${item.id}-error` });
  const reasonError = h('p', { id: `reason-${item.id}-error`, class: 'field-error' });
  const card = h('li', { class: 'review', 'data-checkin': item.id },
    h('h2', {}, t('{player} at {stop}', { player: item.player, stop: item.stop_name || t('no stop') })),
    h('p', { class: 'muted' }, `${t('Check-in {id} · received {when}', { id: item.id, when: formatTime(item.received_at) })}${item.accuracy_m ? ` · ${t('accurate to {m} m', { m: Math.round(item.accuracy_m) })}` : ''}`),
    lateness(item),
    h('ul', { class: 'reasons' }, item.reasons.map((r) => h('li', {}, r))),
    h('div', { class: 'review-media' }, photo, mapBox),
    h('form', { class: 'decide', novalidate: true, onsubmit: (e) => e.preventDefault() },
      h('label', { for: `reason-${item.id}` }, t('Reason (required to reject)')), reason, reasonError,
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'approve', onclick: () => decide('approve') }, t('Approve')),
        h('button', { type: 'button', class: 'danger reject', onclick: () => decide('reject') }, t('Reject')))));
  async function decide(action, override = false) {
    reasonError.textContent = '';
    const text = reason.value.trim();
    if (action === 'reject' && !text) { reasonError.textContent = t('Say why it is rejected: the player sees it.'); reason.setAttribute('aria-invalid', 'true'); reason.focus(); return; }
    const json = { ...(text ? { reason: text } : {}), ...(override ? { override: true } : {}) };
    try {
      const outcome = await api(`/v1/reviews/${item.id}/${action}`, { method: 'POST', auth: true, json });
      say(`${t('Check-in {id} by {player}: {state}', { id: item.id, player: item.player, state: t(outcome.state) })}${outcome.points_change ? `, ${outcome.points_change > 0 ? '+' : ''}${t('{n} points', { n: number(outcome.points_change) })}` : ''}.`);
      decided.add(item.id);
      card.remove();
      recount();
    } catch (error) {
      if (action === 'approve' && error.status === 409 && error.title === 'Fails the rules now') {
        // The rules, run again now, refuse it: say which, and offer to approve it anyway.
        reasonError.textContent = `${error.message.replace(/ \(approve with .*\)$/, '')}.`;
        if (!card.querySelector('button.override')) {
          card.querySelector('form.decide .row').append(
            h('button', { type: 'button', class: 'override', onclick: () => decide('approve', true) }, t('Approve anyway')));
        }
      } else {
        reasonError.textContent = error.message;
      }
    }
  }
  if (item.has_photo) {
    privatePicture(`/v1/checkins/${item.id}/photo`).then((url) => fill(photo, h('img', { src: url, alt: t('The photo of check-in {id}', { id: item.id }) }))).catch(() => fill(photo, h('p', { class: 'muted' }, t('The photo cannot be shown.'))));
  } else {
    fill(photo, h('p', { class: 'muted' }, t('No photo: a device fix only.')));
  }
  if (item.stop) {
    try {
      const { feature } = await findStop(item.stop);
      const map = await drawMap(mapBox, [feature], { label: t('The fix and {stop}', { stop: feature.properties.name }) });
      if (item.lat !== null) map.setPosition({ lat: item.lat, lon: item.lon, accuracy: item.accuracy_m || 0 });
    } catch (_) { /* the stop left the hunts: no map */ }
  }
  return card;
}

// ---------------------------------------------------------------- connection and outbox

async function showConnection() {
  const s = session();
  const count = s ? (await outbox.waiting().catch(() => [])).filter((x) => x.player === s.player.id).length : 0;
  const words = [];
  if (!navigator.onLine) words.push(t('You are offline.'));
  if (count) words.push(t('{checkins} waiting to be sent.', { checkins: plural(count, 'check-in') }));
  fill(connection, words.length ? h('p', {}, words.join(' ')) : null);
}

async function flushOutbox() {
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

window.addEventListener('online', () => { showConnection(); flushOutbox(); });
window.addEventListener('offline', showConnection);

window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof Silent) event.preventDefault();
});

// ---------------------------------------------------------------- language and title

let siteTitle = 'vsh hunts';

/** The choice of language, at the foot of the feed, the sign-in page and the profile. */
function languageSwitch() {
  const select = h('select', { id: 'language', name: 'language' },
    Object.entries(languages).map(([code, name]) => h('option', { value: code, lang: code, selected: code === language() }, name)));
  select.addEventListener('change', async () => {
    remember(select.value);
    await loadLanguage(select.value);
    translateShell();
    render();
  });
  return h('p', { class: 'language' }, h('label', { for: 'language' }, t('Language')), select);
}

/** The page's own words outside `main` (the skip link, the tabs, the brand), in the language. */
function translateShell() {
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

// The operator's title (`vsh serve --title`) and the language, before the first page is drawn.
Promise.all([
  fetch('/app/config.json').then((answer) => answer.json()).then((c) => { if (c && c.title) siteTitle = c.title; }).catch(() => {}),
  loadLanguage(),
]).then(() => {
  translateShell();
  return render();
}).then(() => { showConnection(); flushOutbox(); });

// The app's files and the hunts kept for opening without a connection (sw.js).
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
