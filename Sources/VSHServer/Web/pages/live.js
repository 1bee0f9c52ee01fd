// The moderators' live feed (`/live`): check-ins as they arrive, newest first, with a thumbnail of
// each photo and what a moderator may do with it: approve or reject one waiting, revoke one accepted
// (with a reason the player sees), and feature a photo on the hunt's projector board. For a hunt
// that shares players' positions, organisers see where each player was last on the hunt's map.
import { api, ApiError, privatePicture } from '../api.js';
import { h, fill, formatTime } from '../dom.js';
import { t } from '../i18n.js';
import { drawMap } from '../map.js';
import { main, cleanups, go, say, needSession, feed, huntFile, local, localStops, followLeague } from '../shell.js';

/** How often the organisers' map asks for the players' positions (they send one every 30 s). */
const POSITIONS_MS = 15000;

export async function livePage() {
  needSession();
  const me = await api('/v1/me', { auth: true });
  if (me.role !== 'moderator' && me.role !== 'organiser') throw new ApiError(403, t('Forbidden'), t('Only moderators see the live feed.'));
  const params = new URLSearchParams(location.search);
  const hunt = params.get('hunt') || '';
  const huntSelect = h('select', { id: 'live-hunt', name: 'hunt' }, h('option', { value: '' }, t('All hunts')),
    (await feed()).map((x) => h('option', { value: x.id, selected: x.id === hunt }, local(x, 'name'))));
  huntSelect.addEventListener('change', () => go(`/live${huntSelect.value ? `?hunt=${encodeURIComponent(huntSelect.value)}` : ''}`, { replace: true }));
  const live = h('span', { class: 'live', role: 'status' });
  const grid = h('ul', { class: 'live-feed' });
  const whereBox = h('section', { class: 'positions', hidden: true });
  fill(main, h('h1', {}, t('Live feed')),
    h('form', { class: 'filters', onsubmit: (e) => e.preventDefault() }, h('label', { for: 'live-hunt' }, t('Hunt')), huntSelect),
    whereBox,
    h('p', { class: 'muted' }, t('Check-ins appear here as they arrive. ★ puts a photo on the hunt’s projector board.')),
    live, grid);
  if (hunt && me.role === 'organiser') await playersMap(hunt, whereBox);
  const pictures = new Map();
  cleanups.push(() => { for (const url of pictures.values()) URL.revokeObjectURL(url); });
  let loading = Promise.resolve();
  const load = () => {
    loading = loading.then(async () => {
      const items = await api(`/v1/feed?limit=40${hunt ? `&hunt=${encodeURIComponent(hunt)}` : ''}`, { auth: true });
      fill(grid, ...items.map((item) => card(item)));
      if (!items.length) fill(grid, h('li', { class: 'muted' }, t('No check-ins yet.')));
    }).catch(() => {});
    return loading;
  };
  function card(item) {
    const picture = h('div', { class: 'live-photo' }, item.thumbnail_url ? null : h('span', { class: 'muted' }, t('no photo')));
    if (item.thumbnail_url) {
      const show = (url) => picture.replaceChildren(h('img', { src: url, alt: t('{player} at {stop}', { player: item.player, stop: item.stop_name || t('no stop') }), width: 160, height: 160 }));
      if (pictures.has(item.id)) show(pictures.get(item.id));
      else privatePicture(item.thumbnail_url).then((url) => { pictures.set(item.id, url); show(url); }).catch(() => {});
    }
    const reason = h('input', { maxlength: 500, placeholder: t('Reason'), 'aria-label': t('Reason for check-in {id}', { id: item.id }) });
    const act = async (path, json, words) => {
      try {
        await api(path, { method: path.endsWith('/featured') ? 'PUT' : 'POST', auth: true, json });
        say(words, 'good');
        await load();
      } catch (error) {
        say(error.message, 'bad');
      }
    };
    const needReason = (action) => {
      if (!reason.value.trim()) { reason.focus(); say(t('Say why: the player sees it.'), 'bad'); return; }
      act(`/v1/reviews/${item.id}/${action}`, { reason: reason.value.trim() }, t('Check-in {id}: {state}', { id: item.id, state: t(action === 'reject' ? 'rejected' : 'revoked') }));
    };
    const actions = [];
    if (item.state === 'pending') {
      actions.push(h('button', { type: 'button', class: 'approve', onclick: () => act(`/v1/reviews/${item.id}/approve`, {}, t('Check-in {id}: {state}', { id: item.id, state: t('accepted') })) }, t('Approve')));
      actions.push(h('button', { type: 'button', class: 'danger', onclick: () => needReason('reject') }, t('Reject')));
    }
    if (item.state === 'accepted') actions.push(h('button', { type: 'button', class: 'danger', onclick: () => needReason('revoke') }, t('Revoke')));
    if (item.state === 'accepted' && item.photo_url) {
      actions.push(h('button', { type: 'button', class: item.featured ? 'featured' : 'secondary', 'aria-pressed': String(item.featured),
        onclick: () => act(`/v1/checkins/${item.id}/featured`, { featured: !item.featured }, item.featured ? t('Off the projector.') : t('On the projector.')) },
      item.featured ? t('★ Featured') : t('☆ Feature')));
    }
    return h('li', { class: `live-item state-${item.state}`, 'data-checkin': item.id },
      picture,
      h('div', { class: 'live-text' },
        h('p', {}, h('strong', {}, item.player), item.team ? h('span', { class: 'muted' }, ` · ${item.team.name}`) : null),
        h('p', {}, item.stop_name || t('no stop')),
        h('p', { class: 'muted' }, `${formatTime(item.received_at)} · `, h('span', { class: `state ${item.state}` }, t(item.state))),
        item.state === 'pending' || item.state === 'accepted' ? reason : null,
        h('div', { class: 'row' }, actions)));
  }
  await load();
  followLeague(load, live, t('● Live'));
}

/** The organisers' map of where each player of a hunt that shares positions was last. */
async function playersMap(id, box) {
  const file = await huntFile(id);
  if (!file.hunt.share_positions) return;
  const mapBox = h('div', { class: 'map-box' });
  const list = h('ul', { class: 'positions-list' });
  const status = h('p', { class: 'muted', role: 'status' });
  box.hidden = false;
  fill(box, h('h2', {}, t('Where players are')), mapBox, status, list);
  const map = await drawMap(mapBox, localStops(file.features), { label: t('Map of the stops of {hunt} with the players’ last positions', { hunt: local(file.hunt, 'name') }) });
  // Ages on the server's clock (the organiser's laptop may be minutes off).
  const ago = (iso, now) => {
    const minutes = Math.floor((Date.parse(now) - Date.parse(iso)) / 60000);
    return minutes < 1 ? t('just now') : t('{n} min ago', { n: minutes });
  };
  const load = async () => {
    try {
      const answer = await api(`/v1/hunts/${encodeURIComponent(id)}/positions`, { auth: true });
      const rows = answer.positions;
      map.setPlayers(rows.map((p) => ({
        lat: p.lat, lon: p.lon, accuracy: p.accuracy_m, label: p.player,
        title: `${p.player}${p.team ? ` (${p.team})` : ''} · ${ago(p.at, answer.now)}`,
      })));
      status.textContent = answer.state !== 'open' ? t('The hunt is not open: no positions are taken.')
        : rows.length ? t('{n} players, each where they were last. Players send their position every 30 seconds while a page of the hunt is open.', { n: rows.length })
          : t('No positions yet: players send theirs while a page of the hunt is open.');
      fill(list, ...rows.map((p) => h('li', { class: Date.parse(answer.now) - Date.parse(p.at) > 600000 ? 'stale' : '' },
        h('strong', {}, p.player), p.team ? ` (${p.team})` : '', ` · ${ago(p.at, answer.now)} · ${t('within {m} m', { m: Math.round(p.accuracy_m) })}`)));
    } catch (_) { /* the next round tries again */ }
  };
  await load();
  const timer = setInterval(load, POSITIONS_MS);
  cleanups.push(() => clearInterval(timer));
}
