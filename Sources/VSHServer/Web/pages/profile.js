// Profiles: another player's (`/players/{name}`) and one's own (`/me`).
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox } from '../shell.js';

export function avatar(profile, size = 96) {
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
    // The organisers' bonuses and penalties, with their reasons (already among the points).
    profile.adjustments?.length ? [h('h2', {}, t('From the organisers')),
      h('ul', { class: 'adjustments' }, profile.adjustments.map((a) => h('li', { class: a.points > 0 ? 'good' : 'bad' },
        h('strong', {}, `${a.points > 0 ? '+' : '−'}${number(Math.abs(a.points))}`), ` ${a.reason}`,
        h('span', { class: 'muted' }, ` · ${a.by}, ${formatTime(a.at)}`))))] : null,
  ];
}

export async function playerPage(name) {
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

export async function mePage() {
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
      redraw();
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
    h('p', { class: 'muted' }, me.email ? `${t('Signed in')} · ${me.email}` : t('Signed in'), me.role !== 'player' ? ` · ${({ moderator: t('moderator'), organiser: t('organiser') })[me.role] ?? me.role}` : ''),
    h('div', { class: 'row' },
      h('label', { for: 'avatar', class: 'button secondary' }, t('Change picture')), pictureInput,
      me.role === 'moderator' || me.role === 'organiser' ? h('a', { class: 'button secondary', href: '/review' }, t('Review check-ins')) : null,
      me.role === 'moderator' || me.role === 'organiser' ? h('a', { class: 'button secondary', href: '/live' }, t('Live feed')) : null,
      me.role === 'organiser' ? h('a', { class: 'button secondary', href: '/organise' }, t('Organise hunts')) : null,
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, t('Sign out'))),
    pictureError,
    waiting.length ? h('section', { class: 'waiting' }, h('h2', {}, t('Waiting to be sent')),
      h('ul', {}, waiting.map((x) => h('li', {}, `${x.stopName} · ${t('taken {when}', { when: formatTime(new Date(x.created).toISOString()) })}`)))) : null,
    profileBody(profile),
    h('h2', {}, t('My check-ins')), mine.length ? list : h('p', {}, t('None yet: open a hunt and walk to a stop.')),
    languageSwitch(),
    eraseForm());
}

/** Erasing one's account: the password, then the account is gone (its points stay, unnamed). */
function eraseForm() {
  const password = h('input', { id: 'erase-password', type: 'password', autocomplete: 'current-password', required: true });
  const problem = h('p', { class: 'field-error', role: 'alert' });
  return h('details', { class: 'erase' }, h('summary', {}, t('Delete my account')),
    h('p', {}, t('Your name, e-mail address, picture and photos are deleted for good. The points you earned stay on the boards as “Erased player”, so nobody else’s rank changes.')),
    h('form', { onsubmit: async (event) => {
      event.preventDefault();
      problem.textContent = '';
      if (!confirm(t('Delete your account for good?'))) return;
      try {
        await api('/v1/me', { method: 'DELETE', json: { password: password.value }, auth: true });
        clearSession();
        say(t('Your account is deleted.'));
        go('/');
      } catch (error) {
        problem.textContent = error.status === 403 ? t('That is not your password: nothing was deleted.') : error.message;
      }
    } },
    h('label', { for: 'erase-password' }, t('Your password')), password, problem,
    h('button', { type: 'submit', class: 'danger' }, t('Delete my account'))));
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
