// Moderation (`/review`): pending check-ins, live, approved or rejected with a reason.
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox, followLeague } from '../shell.js';

export async function reviewPage() {
  needSession();
  const me = await api('/v1/me', { auth: true });
  if (me.role !== 'moderator' && me.role !== 'organiser') throw new ApiError(403, t('Forbidden'), t('Only moderators review check-ins.'));
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
  followLeague(load, live, t('● Live: new check-ins appear here'));
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
