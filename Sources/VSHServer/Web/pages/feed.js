// The hunt feed (`/`): featured stops, then each hunt with its map or image, schedule and progress.
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import { codeForm } from './join.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox, huntImage } from '../shell.js';

export async function feedPage() {
  const s = session();
  const list = await feed();
  const files = await Promise.all(list.map((hunt) => huntFile(hunt.id)));
  let mine = null;
  if (s) {
    try { mine = await api(`/v1/players/${encodeURIComponent(s.player.username)}`); } catch (_) { mine = null; }
  }
  const progressOf = new Map((mine ? mine.hunts : []).map((p) => [p.hunt, p]));
  let news = [];
  try { news = (await api('/v1/announcements', { auth: true })).slice(0, 5); } catch (_) { news = []; }
  const featured = files.flatMap((file) => file.features.filter((f) => f.properties.featured).map((f) => ({ f, hunt: file.hunt })));
  const named = (hunt) => local(hunt, 'name');
  const cards = files.map((file, i) => {
    const hunt = list[i];
    const mineHere = progressOf.get(hunt.id);
    const art = h('div', { class: 'card-art' });
    if (hunt.image) art.append(huntImage(`/v1/hunts/${hunt.id}/image`, hunt, { alt: '', loading: 'lazy' }));
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
    news.length ? h('section', { class: 'news', 'aria-labelledby': 'news-title' },
      h('h2', { id: 'news-title' }, t('Announcements')),
      h('ul', {}, news.map((a) => h('li', {}, a.text, ' ', h('span', { class: 'muted' }, `· ${a.by}, ${formatTime(a.at)}`))))) : null,
    featured.length ? h('section', { class: 'featured', 'aria-labelledby': 'featured-title' },
      h('h2', { id: 'featured-title' }, t('Featured stops')),
      h('ul', {}, featured.map(({ f, hunt }) => h('li', {},
        h('a', { href: `/stops/${f.id}` }, local(f.properties, 'name')), ` · ${named(hunt)}`,
        f.properties.sponsor ? [' ', h('span', { class: 'sponsor' }, t('Sponsored by {sponsor}', { sponsor: f.properties.sponsor }))] : null)))) : null,
    h('ul', { class: 'cards' }, cards),
    s ? codeForm() : null,
    languageSwitch());
}
