// A check-in's verdict as a player reads it: the result large, the badges earned by name, the hunt
// completed with its share link, the next stop to walk to; the rules behind "How it was checked",
// in plain words with times in the hunt's zone, failed ones first with what to do.
import { h, formatDistance, formatClock, distanceTo, number } from './dom.js';
import { t } from './i18n.js';

const ruleWords = {
  position: 'Where you were',
  capture_time: 'When the photo was taken',
  accuracy: 'How precise your position was',
  not_in_future: 'Not dated in the future',
  photo_age: 'Fresh enough',
  hunt_window: 'While the hunt is open',
  clocks_agree: 'The clocks agree',
  at_stop: 'At the stop',
  unique_photo: 'A photo of your own',
  travel_speed: 'A believable pace',
  stop_order: 'In the hunt\'s order',
  first_visit: 'First visit here',
  code: 'The stop\'s code',
  answer: 'The stop\'s question',
};

// What to do when a rule fails (or waits for a moderator).
const advice = {
  position: 'Let this site use your position, or take the photo with your camera app with location on.',
  capture_time: 'Take a new photo here now.',
  accuracy: 'Wait a moment in the open, away from tall buildings, for a sharper position, then try again.',
  not_in_future: 'Set your phone\'s date and time to automatic, then take a new photo.',
  photo_age: 'Take a new photo here now: older photos do not count.',
  hunt_window: 'Check-ins count only while the hunt is open.',
  clocks_agree: 'Set your phone\'s date and time to automatic, then try again.',
  at_stop: 'Walk into the stop\'s area on the map, then check in again.',
  unique_photo: 'Take your own new photo of the stop.',
  travel_speed: 'A moderator looks at check-ins that came faster than a walk.',
  stop_order: 'Visit the stops in the hunt\'s order: the earlier ones first.',
  first_visit: 'You have this stop already: find the next one.',
  code: 'Scan the QR code at the stop with your camera, or type the code shown there.',
  answer: 'Look around the stop again: the answer is there to read.',
};

const resultWords = { passed: '✓ passed', failed: '✗ failed', skipped: '– not checked', needs_review: '? a moderator decides' };
const order = { failed: 0, needs_review: 1, passed: 2, skipped: 3 };
const ruleName = (rule) => (ruleWords[rule] ? t(ruleWords[rule]) : rule);

/** Times in a rule's detail ("device time 2026-11-26T13:54:01.250Z") as the hunt's local time. */
export function plainDetail(detail, timeZone) {
  return detail.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (iso) => formatClock(iso, timeZone));
}

/** The nearest stop of the hunt not visited yet, from `position`: {feature, metres} or null. */
export function nextStop(features, visited, position) {
  let best = null;
  for (const f of features) {
    if (visited.has(f.id)) continue;
    const metres = position ? distanceTo(position, f.geometry) : null;
    if (!best || (metres !== null && (best.metres === null || metres < best.metres))) best = { feature: f, metres };
  }
  return best;
}

/**
 * The verdict. `context`: hunt (the hunt's metadata), features (its stops), visited (ids, this stop
 * included when accepted), position (the fix sent), photo (an object URL of the player's photo),
 * badges (Map badge id → name, from the player's profile), player (their name).
 */
export function verdictView(answer, context = {}) {
  const { hunt = null, features = [], visited = new Set(), position = null, photo = null, badges = new Map(), player = null } = context;
  const zone = hunt && hunt.timezone;
  const awards = answer.awards || [];
  const total = (answer.points || 0) + awards.reduce((sum, a) => sum + (a.points || 0), 0);
  const rules = [...(answer.rules || [])].sort((a, b) => (order[a.result] ?? 9) - (order[b.result] ?? 9));
  const problems = rules.filter((r) => r.result === 'failed' || r.result === 'needs_review');
  const stopName = answer.stop_name;
  const headline = {
    accepted: total ? t('+{n} points', { n: number(total) }) : t('Checked in'),
    pending: t('Sent to a moderator'),
    rejected: t('Not this time'),
  }[answer.verdict] || answer.verdict;
  const sub = {
    accepted: stopName ? `✓ ${stopName}` : `✓ ${t('Checked in')}`,
    pending: `${stopName ? `${stopName}: ` : ''}${t('a moderator looks at it soon. The points come when they approve it; their answer shows on your profile.')}`,
    rejected: stopName ? t('Your check-in at {stop} does not count.', { stop: stopName }) : t('This check-in does not count.'),
  }[answer.verdict] || '';
  const bonus = awards.find((a) => a.kind === 'bonus');
  const earned = awards.filter((a) => a.kind === 'badge');
  const next = answer.verdict === 'accepted' && !bonus ? nextStop(features, visited, position) : null;
  const share = bonus && player ? `/share/${encodeURIComponent(player)}/${encodeURIComponent(bonus.hunt)}` : null;
  return h('section', { class: `verdict ${answer.verdict}`, 'aria-labelledby': 'verdict-title', tabindex: '-1' },
    h('div', { class: 'verdict-head' },
      photo ? h('img', { class: 'verdict-photo', src: photo, alt: t('Your photo') }) : h('span', { class: 'verdict-mark', 'aria-hidden': 'true' }, { accepted: '✓', pending: '⌛', rejected: '✗' }[answer.verdict] || '?'),
      h('div', {},
        h('h2', { id: 'verdict-title', class: 'verdict-title' }, headline),
        h('p', { class: 'verdict-sub' }, sub),
        answer.verdict === 'accepted' && answer.points && total !== answer.points ? h('p', { class: 'muted' }, t('{stop} for the stop, {awards} in awards', { stop: number(answer.points), awards: number(total - answer.points) })) : null)),
    problems.length && answer.verdict !== 'accepted' ? h('ul', { class: 'todo' }, problems.map((r) => h('li', { class: r.result },
      h('strong', {}, ruleName(r.rule)), ': ', plainDetail(r.detail || '', zone), '. ',
      h('span', { class: 'advice' }, advice[r.rule] ? t(advice[r.rule]) : '')))) : null,
    earned.length ? h('ul', { class: 'earned', 'aria-label': t('Badges earned') }, earned.map((a) => h('li', {},
      h('span', { class: 'medal', 'aria-hidden': 'true' }, '★'),
      h('span', {}, h('strong', {}, badges.get(a.badge) || a.badge), h('span', { class: 'muted' }, ` ${t('badge')} · +${number(a.points)}`))))) : null,
    bonus ? h('div', { class: 'complete', role: 'status' },
      h('p', { class: 'complete-title' }, h('span', { class: 'medal', 'aria-hidden': 'true' }, '★'), ` ${t('{hunt} complete!', { hunt: hunt ? hunt.name : t('Hunt') })}`),
      h('p', {}, t('Every stop found: +{n} bonus points.', { n: number(bonus.points) })),
      share ? h('div', { class: 'row' },
        h('a', { class: 'button', href: share }, t('See and share your collage')),
        'share' in navigator ? h('button', { type: 'button', class: 'secondary', onclick: () => navigator.share({ title: hunt ? hunt.name : 'vsh', url: new URL(share, location.href).href }).catch(() => {}) }, t('Share…')) : null) : null) : null,
    next ? h('p', { class: 'next' }, `${t('Next:')} `, h('a', { href: `/stops/${next.feature.id}` }, next.feature.properties.name),
      next.metres !== null ? ` · ${formatDistance(next.metres)}` : '') : null,
    rules.length ? h('details', { class: 'how' }, h('summary', {}, t('How it was checked')),
      h('ul', { class: 'rules' }, rules.map((r) => h('li', { class: r.result },
        h('span', { class: 'rule-name' }, ruleName(r.rule)), ' ',
        h('span', { class: 'rule-result' }, resultWords[r.result] ? t(resultWords[r.result]) : r.result),
        r.detail ? h('span', { class: 'rule-detail' }, plainDetail(r.detail, zone)) : null)))) : null);
}

/** One line for a check-in sent later from the outbox: the verdict and the first thing to do. */
export function verdictLine(stopName, answer, zone) {
  const problem = (answer.rules || []).find((r) => r.result === 'failed') || (answer.rules || []).find((r) => r.result === 'needs_review');
  if (answer.verdict === 'accepted') return `${t('Your check-in at {stop} was sent: accepted', { stop: stopName })}${answer.points ? `, ${t('+{n} points', { n: number(answer.points) })}` : ''}.`;
  if (answer.verdict === 'pending') return `${t('Your check-in at {stop} was sent and waits for a moderator', { stop: stopName })}${problem ? ` (${ruleName(problem.rule)}: ${plainDetail(problem.detail, zone)})` : ''}. ${t('Their answer shows on your profile.')}`;
  return `${t('Your check-in at {stop} was sent but does not count', { stop: stopName })}${problem ? `: ${ruleName(problem.rule)}, ${plainDetail(problem.detail, zone)}. ${advice[problem.rule] ? t(advice[problem.rule]) : ''}` : '.'}`;
}
