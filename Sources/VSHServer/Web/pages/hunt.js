// A hunt (`/hunts/{id}`): its stops on a map, the player's position and distances.
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { teamPanel } from './team.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox, positionSharing } from '../shell.js';

export async function huntPage(id) {
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
      h('span', { class: 'stop-facts' }, t('{n} points', { n: number(f.properties.points) }),
        // Indoors, where GPS fails: the stop has a code to scan or type.
        f.properties.has_code ? h('span', { class: 'has-code' }, ` · ${t('code at the stop')}`) : null,
        f.properties.question ? h('span', { class: 'has-question' }, ` · ${f.properties.answer_points ? t('question: +{n} points', { n: f.properties.answer_points }) : t('a question')}`) : null, done ? h('span', { class: 'tick' }, ` ${t('✓ visited')}`) : null, ' ', distance));
  }));
  const share = h('button', { type: 'button', class: 'secondary', onclick: () => start() }, t('Show where I am'));
  const status = h('p', { class: 'position-status', role: 'status' });
  const where = position.tracker('geolocation' in navigator ? navigator.geolocation : null);
  cleanups.push(() => where.stop());
  fill(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/' }, t('Hunts'))),
    h('h1', {}, local(hunt, 'name')),
    h('p', { class: 'facts' }, difficulty(hunt.difficulty), ` ${plural(file.features.length, 'stop')} · ${visited.size ? `${t('{n} visited', { n: [...visited].filter((s) => rows.has(s)).length })} · ` : ''}${t('completion bonus {n} points', { n: number(hunt.bonus_points) })}`),
    h('p', {}, local(hunt, 'description')),
    hunt.ordered ? h('p', { class: 'note' }, t('Visit the stops in the order listed.')) : null,
    schedule(hunt, file.state, { live: true }),
    teamPanel(hunt),
    positionSharing(hunt, file.state, where),
    mapBox, h('div', { class: 'row' }, share, status),
    h('h2', {}, t('Stops')), list);
  const map = await drawMap(mapBox, localStops(file.features), { visited, link: true, label: t('Map of the stops of {hunt}', { hunt: local(hunt, 'name') }) });
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
