// The projector board (`/board/{hunt}`): a venue's screen during an event. Large type, the hunt's
// name, its top ten, the latest announcements; live from the event stream; no controls (the app's
// header and tabs are hidden). A private hunt's board needs a session that may see the hunt.
import { api, privatePicture } from '../api.js';
import { h, fill, number, formatTime } from '../dom.js';
import { t } from '../i18n.js';
import { main, cleanups, huntFile, local, followLeague, siteTitle } from '../shell.js';
import { avatar } from './profile.js';

export async function projectorPage(id) {
  document.body.classList.add('projector');
  cleanups.push(() => document.body.classList.remove('projector'));
  const file = await huntFile(id);
  const live = h('span', { class: 'live', role: 'status' });
  const board = h('div', { class: 'projector-board' });
  const news = h('aside', { class: 'projector-news', 'aria-label': t('Announcements') });
  const photos = h('div', { class: 'pj-photos', 'aria-label': t('Featured photos') });
  fill(main, h('header', { class: 'projector-head' },
    h('p', { class: 'event' }, siteTitle), h('h1', {}, local(file.hunt, 'name')), live),
  h('div', { class: 'projector-body' }, board, h('div', { class: 'projector-side' }, photos, news)));
  // A hunt played in teams shows its top ten teams.
  const teams = file.hunt.play === 'teams';
  const photoURLs = [];
  cleanups.push(() => { for (const url of photoURLs) URL.revokeObjectURL(url); });
  const load = async () => {
    const [rows, said, featured] = await Promise.all([
      api(`/v1/leaderboard?hunt=${encodeURIComponent(id)}&limit=10${teams ? '&by=team' : ''}`, { auth: true }),
      api('/v1/announcements', { auth: true }),
      api(`/v1/hunts/${encodeURIComponent(id)}/featured`, { auth: true }),
    ]);
    // The moderators' featured photos, newest first (a private hunt's through the screen's session).
    const shown = await Promise.all(featured.slice(0, 4).map(async (p) => {
      try { return { ...p, url: await privatePicture(p.photo_url) }; } catch (_) { return null; }
    }));
    for (const url of photoURLs.splice(0)) URL.revokeObjectURL(url);
    fill(photos, ...shown.filter(Boolean).map((p) => {
      photoURLs.push(p.url);
      return h('figure', { class: 'pj-photo' }, h('img', { src: p.url, alt: t('{player} at {stop}', { player: p.player, stop: p.stop_name || '' }) }),
        h('figcaption', {}, `${p.player}${p.stop_name ? ` · ${p.stop_name}` : ''}`));
    }));
    fill(board, rows.length ? h('ol', { class: 'pj-top' }, rows.map((r) => h('li', { class: `pj-row${r.rank <= 3 ? ` pj-r${r.rank}` : ''}` },
      h('span', { class: 'pj-rank' }, String(r.rank)), teams ? null : avatar({ name: r.player, avatar_url: r.avatar_url }, 56),
      h('span', { class: 'pj-name' }, teams ? r.team : r.player), h('span', { class: 'pj-points' }, t('{n} points', { n: number(r.points) })))))
      : h('p', { class: 'waiting' }, t('No scores yet: go find the first stop!')));
    const mine = said.filter((a) => !a.hunt || a.hunt === id).slice(0, 3);
    fill(news, ...mine.map((a) => h('div', { class: 'said' }, h('p', {}, a.text), h('p', { class: 'when' }, formatTime(a.at, file.hunt.timezone)))));
  };
  await load();
  followLeague(load, live, t('● Live'));
}
