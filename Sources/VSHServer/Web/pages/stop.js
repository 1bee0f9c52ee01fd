// A stop (`/stops/{id}`) and its check-in: position first, the photo, the verdict.
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox, positionSharing, huntImage } from '../shell.js';

export async function stopPage(id) {
  const { hunt, state, file, feature, number: stopNumber } = await findStop(id);
  // A scanned QR code opens /stops/ID?code=CODE: the code is kept for the check-in and taken out of
  // the address bar, so that a screenshot or a shared link does not pass it on.
  const params = new URLSearchParams(location.search);
  const scanned = params.get('code') || '';
  if (scanned && session()) history.replaceState(history.state, '', location.pathname);
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
    p.image ? huntImage(`/v1/stops/${feature.id}/image`, hunt, { class: 'stop-image', alt: local(p, 'name') }) : null,
    h('p', {}, local(p, 'description')),
    positionSharing(hunt, state, where),
    mapBox, distance,
    !open ? schedule(hunt, state, { live: true })
      : s ? checkInForm(hunt, file, feature, where, visited, scanned)
        : h('p', { class: 'note' }, h('a', { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, t('Sign in')), ` ${t('to check in here.')}`));
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

function checkInForm(hunt, collection, feature, where, visited, scanned) {
  const s = session();
  const p = feature.properties;
  // What the stop asks for, and what the hunt asks of every stop (`proof`: "photo", or a list).
  const huntProof = Array.isArray(hunt.proof) ? hunt.proof : hunt.proof === 'photo' ? ['photo'] : [];
  const proof = [...new Set([...(p.proof || []), ...huntProof])];
  // A photo is needed when the hunt or the stop asks for one; else a stop's code can be enough.
  const photoNeeded = proof.includes('photo');
  const codeWanted = Boolean(p.has_code || scanned);
  const photo = h('input', { type: 'file', id: 'photo', name: 'photo', accept: 'image/*', capture: 'environment', required: photoNeeded || !codeWanted, 'aria-describedby': 'photo-help photo-error' });
  const code = codeWanted ? h('input', { type: 'text', id: 'code', name: 'code', value: scanned, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', maxlength: 40, required: proof.includes('code'), 'aria-describedby': 'code-help' }) : null;
  const codeHelp = codeWanted ? h('p', { id: 'code-help', class: 'help' },
    scanned ? t('✓ Code scanned at the stop: it goes with your check-in.')
      : proof.includes('code') ? t('Scan the QR code at the stop with your camera, or type the code shown there.')
        : t('No GPS indoors? Scan the QR code at the stop, or type the code shown there.')) : null;
  // The stop's question (its answers stay on the server): choices to pick from, or a text to type.
  const asked = p.question ? questionBox(p, proof.includes('answer')) : null;
  const preview = h('img', { class: 'preview', alt: t('The photo you picked'), hidden: true });
  const bar = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': t('Upload') });
  const error = h('p', { id: 'photo-error', class: 'field-error' });
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, t('Check in here'));
  const fixLine = h('p', { id: 'photo-help', class: 'help fix-state' });
  let sending = false;
  let finished = false;
  let photoURL = null;
  // The button and the line under the photo say what the check-in waits for.
  const show = () => {
    if (sending || finished) return;
    const fresh = where.fresh();
    if (fresh) fixLine.textContent = t('✓ Your position is ready (within {m} m): it goes with the photo.', { m: Math.round(fresh.accuracy) });
    else if (where.problem) fixLine.textContent = t('Your position is not available: see below how to share it.');
    else if (where.started) fixLine.textContent = t('Finding your position…');
    else fixLine.textContent = t('Your position goes with the photo: the browser asks you to share it.');
    button.textContent = where.started && !fresh && !where.problem && photo.files[0] ? t('Waiting for your position…') : t('Check in here');
    // Position first: as soon as the browser says no, the page says how to turn it on.
    // With a stop's code in hand the position is not needed: no help box over the verdict.
    if (where.problem && !(code && code.value.trim()) && !result.querySelector('.location-help')) explain();
    else if (fresh && result.querySelector('.location-help')) fill(result);
  };
  const explain = () => {
    // Shown once: a second call (the watch failed, then the button was pressed) keeps the same box.
    const shown = result.querySelector('.location-help');
    if (shown) { shown.scrollIntoView({ block: 'nearest' }); return; }
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
    const typed = code ? code.value.trim() : '';
    if (code && proof.includes('code') && !typed) { error.textContent = t('Type the code shown at the stop, or scan its QR code.'); code.setAttribute('aria-invalid', 'true'); code.focus(); return; }
    const answered = asked ? asked.value() : '';
    if (asked && proof.includes('answer') && !answered) { error.textContent = t('Answer the question to check in here.'); asked.focus(); return; }
    if (!file && (photoNeeded || !typed)) { error.textContent = t('Take or pick a photo of the stop first.'); photo.setAttribute('aria-invalid', 'true'); photo.focus(); return; }
    photo.removeAttribute('aria-invalid');
    if (code) code.removeAttribute('aria-invalid');
    button.disabled = true;
    sending = true;
    try {
      let fix = where.fresh();
      // With a code the check-in need not wait for GPS (indoors it may never come), unless the
      // stop asks for the phone's own position too.
      if (!fix && !where.problem && (!typed || proof.includes('fix'))) {
        button.textContent = t('Waiting for your position…');
        fill(result, h('p', { role: 'status' }, t('Waiting for your position…')));
        fix = await where.next(20000);
      }
      if (!fix && !typed && !(await position.photoHasGPS(file))) {
        // Without a position nothing can place the player: nothing is sent, the photo stays theirs.
        explain();
        return;
      }
      const item = {
        key: newKey(), player: s.player.id, hunt: hunt.id, stop: feature.id, stopName: local(feature.properties, 'name'),
        photo: file || null, photoName: file ? (file.name || 'photo.jpg') : null, code: typed || null, answer: answered || null, lat: fix ? fix.lat : null, lon: fix ? fix.lon : null,
        accuracy: fix ? fix.accuracy : null, fixTime: fix ? new Date(fix.time).toISOString() : null, created: Date.now(),
        zone: hunt.timezone,
      };
      try {
        if (!navigator.onLine) throw new OfflineError('offline');
        button.textContent = t('Sending…');
        fill(result, h('p', { role: 'status' }, fix || typed ? t('Sending…') : t('Sending: the photo\'s own GPS places you…')));
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
          // A wrong answer with tries left: the stop counts, and the question may be tried again.
          const retry = body.verdict === 'accepted' && body.answer && !body.answer.right && body.answer.tries_left > 0;
          // How the answer went, in the verdict too (the question's box goes once the stop is done).
          const said = asked && asked.after(body.answer);
          if (said) result.querySelector('.verdict-sub').after(said);
          // Accepted: the stop is done, and the verdict takes the form's place.
          if (body.verdict === 'accepted' && !retry) {
            finished = true;
            for (const el of controls) el.hidden = true;
            // The code has done its work: it stays neither in the form nor in the page.
            if (code) { code.value = ''; code.removeAttribute('value'); }
          }
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
  const label = h('label', { for: 'photo' }, photoNeeded || !codeWanted ? t('Photo of the stop') : t('Photo of the stop (if you like)'));
  const codeLabel = code ? h('label', { for: 'code' }, t('Code from the stop')) : null;
  const controls = [asked && asked.box, label, photo, fixLine, codeLabel, code, codeHelp, error, preview, button].filter(Boolean);
  const form = h('form', { class: 'checkin', novalidate: true, onsubmit: (event) => { event.preventDefault(); submit(); } },
    h('h2', {}, t('Check in')), asked && asked.box, label, photo, fixLine, codeLabel, code, codeHelp, error, preview, button, bar, result);
  show();
  // Scanned at the stop, and nothing else asked: the check-in goes at once.
  if (scanned && !photoNeeded && !(asked && proof.includes('answer'))) setTimeout(submit, 0);
  return form;
}

/**
 * The stop's question as a fieldset: its text, its points and tries, and radio buttons for its
 * choices or a text field. `value()` is the answer given; `after(answer)` says how it went (the
 * check-in's `answer`: right, and the tries left) and clears it for another try.
 */
function questionBox(p, required) {
  const help = h('p', { id: 'answer-help', class: 'help' },
    (p.answer_points ? t('{n} points for the right answer.', { n: p.answer_points }) + ' ' : '')
      + (p.attempts === 1 ? t('One try.') : t('{n} tries.', { n: p.attempts || 3 }))
      + (p.choices ? '' : ' ' + t('Capitals, accents and spaces do not matter.')));
  let field;
  let choices = [];
  if (Array.isArray(p.choices) && p.choices.length) {
    choices = p.choices.map((choice, i) => h('input', { type: 'radio', name: 'answer', id: `answer-${i}`, value: choice, required }));
    field = h('div', { class: 'choices', role: 'radiogroup', 'aria-describedby': 'answer-help' },
      ...choices.map((input, i) => h('label', { for: `answer-${i}`, class: 'choice' }, input, ' ', p.choices[i])));
  } else {
    field = h('input', { type: 'text', id: 'answer', name: 'answer', autocomplete: 'off', maxlength: 300, required, 'aria-describedby': 'answer-help' });
  }
  const outcome = h('p', { class: 'answer-outcome', 'aria-live': 'polite' });
  const box = h('fieldset', { class: 'stop-question' },
    h('legend', {}, required ? t('Question (answer it to check in)') : t('Question')),
    h('p', { class: 'question-text' }, p.question),
    choices.length ? field : h('label', { for: 'answer', class: 'visually-hidden' }, t('Your answer')),
    choices.length ? null : field, help, outcome);
  return {
    box,
    value: () => choices.length ? ((choices.find((c) => c.checked) || {}).value || '') : field.value.trim(),
    focus: () => (choices[0] || field).focus(),
    after: (answer) => {
      if (!answer) return null;
      outcome.className = `answer-outcome ${answer.right ? 'right' : 'wrong'}`;
      outcome.textContent = answer.right ? t('Right answer!')
        : answer.tries_left > 0 ? t('Not the answer. Tries left: {n}.', { n: answer.tries_left })
          : t('Not the answer, and no tries left.');
      if (choices.length) for (const c of choices) c.checked = false; else field.value = '';
      return h('p', { class: outcome.className }, outcome.textContent);
    },
  };
}
