// The live leaderboard (`/leaderboard`).
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox, followLeague } from '../shell.js';
import { avatar } from './profile.js';

export async function leaderboardPage() {
  const params = new URLSearchParams(location.search);
  const list = await feed();
  const hunt = params.get('hunt') || '';
  const window_ = params.get('window') || 'all';
  // A hunt played in teams has a team board too.
  const teamHunt = list.find((x) => x.id === hunt && x.play && x.play !== 'solo');
  const byTeam = !!teamHunt && params.get('by') === 'team';
  const bySelect = h('select', { id: 'board-by', name: 'by' },
    h('option', { value: 'player' }, t('Players')), h('option', { value: 'team', selected: byTeam }, t('Teams')));
  const huntSelect = h('select', { id: 'board-hunt', name: 'hunt' },
    h('option', { value: '' }, t('All hunts')), list.map((x) => h('option', { value: x.id, selected: x.id === hunt }, local(x, 'name'))));
  const windowSelect = h('select', { id: 'board-window', name: 'window' },
    [['all', 'All time'], ['today', 'Today'], ['week', 'Last 7 days']].map(([v, words]) => h('option', { value: v, selected: v === window_ }, t(words))));
  const change = () => {
    const q = new URLSearchParams();
    if (huntSelect.value) q.set('hunt', huntSelect.value);
    if (windowSelect.value !== 'all') q.set('window', windowSelect.value);
    if (bySelect.value === 'team' && huntSelect.value) q.set('by', 'team');
    go(`/leaderboard${q.toString() ? '?' + q : ''}`, { replace: true });
  };
  huntSelect.addEventListener('change', change);
  windowSelect.addEventListener('change', change);
  bySelect.addEventListener('change', change);
  const live = h('span', { class: 'live', role: 'status' });
  const table = h('div', { class: 'board' });
  fill(main, h('h1', {}, t('Leaderboard')),
    h('form', { class: 'filters', onsubmit: (e) => e.preventDefault() },
      h('label', { for: 'board-hunt' }, t('Hunt')), huntSelect,
      teamHunt ? [h('label', { for: 'board-by' }, t('Who')), bySelect] : null,
      byTeam ? null : [h('label', { for: 'board-window' }, t('When')), windowSelect]),
    live, table);
  const q = new URLSearchParams({ limit: '100' });
  if (hunt) q.set('hunt', hunt);
  if (window_ === 'today') { const d = new Date(); d.setHours(0, 0, 0, 0); q.set('since', d.toISOString().replace(/\.\d+Z$/, 'Z')); }
  if (window_ === 'week') q.set('since', new Date(Date.now() - 7 * 86400000).toISOString().replace(/\.\d+Z$/, 'Z'));
  const me = session();
  if (byTeam) q.set('by', 'team');
  async function load() {
    const rows = await api(`/v1/leaderboard?${q}`, { auth: true });
    if (byTeam) {
      table.classList.add('teams');
      fill(table, rows.length ? h('table', { class: 'team-board' },
        h('caption', { class: 'visually-hidden' }, t('Teams by points')),
        h('thead', {}, h('tr', {}, ['Rank', 'Team', 'Points', 'Stops', 'Members'].map((words) => h('th', { scope: 'col' }, t(words))))),
        h('tbody', {}, rows.map((r) => h('tr', { class: me && r.members.includes(me.player.username) ? 'me' : '', 'data-team': r.team },
          h('td', {}, String(r.rank)),
          h('th', { scope: 'row' }, h('a', { href: `/teams/${r.team_id}` }, r.team), r.completed ? ` ${t('✓')}` : ''),
          h('td', { class: 'points' }, number(r.points)),
          h('td', {}, String(r.stops_visited)), h('td', { class: 'members' }, r.members.join(', '))))))
        : h('p', {}, t('No teams yet: make one on the hunt’s page.')));
      return;
    }
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
  followLeague(load, live, t('● Live'));
}
