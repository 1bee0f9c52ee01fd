// The organisers' console (`/organise`, `/organise/{hunt}`): hunts and drafts; a hunt's fields and its
// stops, each drawn on the map (tap the corners, drag them), made as a circle around the phone or a
// tapped point, walked with the phone, or imported from GeoJSON, KML or GPX; the draft saved and
// validated as it changes, with each problem next to what it is about; published with one button,
// with the revision history. Everything goes through the organiser routes of docs/api.md.
import { api, ApiError, authHeaders } from '../api.js';
import { h, fill, formatTime, rings, centre } from '../dom.js';
import { t } from '../i18n.js';
import { main, cleanups, go, say, needSession } from '../shell.js';
import { basemap, basemapLayer, leafletEditor } from '../map.js';

const enc = encodeURIComponent;
const M = 111320;

async function organiser() {
  needSession();
  const me = await api('/v1/me', { auth: true });
  if (me.role !== 'organiser') {
    throw new ApiError(403, t('Forbidden'), t('Only organisers edit hunts (an operator grants the role with vsh player role NAME organiser).'));
  }
  return me;
}

/** An id from a name: lower case, a-z, 0-9 and hyphens. */
export function slug(text) {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
}

/** `/organise`: every hunt with its draft, and a new one. */
export async function organisePage() {
  await organiser();
  const [published, drafts] = await Promise.all([api('/v1/hunts'), api('/v1/drafts', { auth: true })]);
  const draftOf = new Map(drafts.map((d) => [d.hunt, d]));
  const row = (id, name, note) => h('li', {}, h('a', { href: `/organise/${enc(id)}` }, name), note ? h('span', { class: 'muted' }, ` · ${note}`) : null);
  const draftNote = (d) => t('draft saved {time} by {who}', { time: formatTime(d.saved_at), who: d.by || '?' });
  const list = h('ul', { class: 'organise-hunts' },
    ...published.map((hunt) => row(hunt.id, hunt.name, draftOf.has(hunt.id) ? draftNote(draftOf.get(hunt.id)) : t('published'))),
    ...drafts.filter((d) => !published.some((p) => p.id === d.hunt)).map((d) => row(d.hunt, d.name || d.hunt, `${t('new, not published yet')} · ${draftNote(d)}`)));
  const name = h('input', { id: 'new-name', name: 'name', required: true, maxlength: 120, autocomplete: 'off' });
  const id = h('input', { id: 'new-id', name: 'id', required: true, maxlength: 60, pattern: '[a-z0-9]+(-[a-z0-9]+)*', autocomplete: 'off', 'aria-describedby': 'new-id-help' });
  let idTouched = false;
  name.addEventListener('input', () => { if (!idTouched) id.value = slug(name.value); });
  id.addEventListener('input', () => { idTouched = true; });
  const error = h('p', { class: 'field-error', role: 'alert' });
  const form = h('form', { class: 'new-hunt' },
    h('h2', {}, t('A new hunt')),
    h('label', { for: 'new-name' }, t('Name')), name,
    h('label', { for: 'new-id' }, t('Id (in its address)')), id,
    h('p', { id: 'new-id-help', class: 'muted' }, t('Lower-case letters, digits and hyphens; it cannot change later.')),
    error, h('button', { type: 'submit' }, t('Create the hunt')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const doc = {
      type: 'FeatureCollection',
      hunt: { id: id.value, name: name.value, description: '', difficulty: 'easy', bonus_points: 0, ordered: false, timezone: zone, max_accuracy_m: 50, max_photo_age_s: 86400, tolerance_m: 10 },
      features: [],
    };
    try {
      await api('/v1/hunts', { method: 'POST', json: doc, auth: true });
      go(`/organise/${enc(id.value)}`);
    } catch (e) {
      error.textContent = e.errors && e.errors.length ? e.errors.map((p) => p.detail).join(' · ') : e.message;
    }
  });
  // An announcement to every player, or to one hunt's: shown above their pages until dismissed.
  const message = h('textarea', { id: 'announcement-text', name: 'text', required: true, maxlength: 500, rows: 3 });
  const audience = h('select', { id: 'announcement-hunt', name: 'hunt' }, h('option', { value: '' }, t('Every player')),
    ...published.map((hunt) => h('option', { value: hunt.id }, t('Players of {hunt}', { hunt: hunt.name }))));
  const sent = h('p', { class: 'field-error', role: 'status' });
  const announce = h('form', { class: 'announce' },
    h('h2', {}, t('Send an announcement')),
    h('label', { for: 'announcement-text' }, t('Message')), message,
    h('label', { for: 'announcement-hunt' }, t('To')), audience,
    sent, h('button', { type: 'submit' }, t('Send')));
  announce.addEventListener('submit', async (event) => {
    event.preventDefault();
    sent.textContent = '';
    try {
      await api('/v1/announcements', { method: 'POST', json: { text: message.value, hunt: audience.value || null }, auth: true });
      message.value = '';
      say(t('Sent: players see it now.'), 'good');
    } catch (e) {
      sent.textContent = e.message;
    }
  });
  // A player renamed (an offensive name) or banned, or the ban lifted.
  const who = h('input', { id: 'player-name', maxlength: 40, autocomplete: 'off' });
  const rename = h('input', { id: 'player-rename', maxlength: 40, autocomplete: 'off' });
  const playerProblem = h('p', { class: 'field-error', role: 'alert' });
  const change = async (json, words) => {
    playerProblem.textContent = '';
    try {
      const answer = await api(`/v1/players/${encodeURIComponent(who.value.trim())}`, { method: 'PATCH', json, auth: true });
      say(words(answer.player), 'good');
      who.value = answer.player;
      rename.value = '';
    } catch (e) {
      playerProblem.textContent = e.message;
    }
  };
  const players = h('form', { class: 'players-admin', onsubmit: (e) => e.preventDefault() },
    h('h2', {}, t('Players')),
    h('label', { for: 'player-name' }, t('Player')), who,
    h('label', { for: 'player-rename' }, t('New name')), rename, playerProblem,
    h('div', { class: 'stop-actions' },
      h('button', { type: 'button', class: 'secondary', onclick: () => change({ username: rename.value }, (name) => t('Renamed: {player}.', { player: name })) }, t('Rename')),
      h('button', { type: 'button', class: 'danger', onclick: () => change({ banned: true }, (name) => t('{player} is banned: off the boards and signed out.', { player: name })) }, t('Ban')),
      h('button', { type: 'button', class: 'secondary', onclick: () => change({ banned: false }, (name) => t('{player} may play again.', { player: name })) }, t('Lift the ban'))));
  fill(main, h('h1', {}, t('Organise hunts')),
    h('p', { class: 'muted' }, t('Edit a hunt as a draft; players see it when you publish.')),
    h('p', {}, h('a', { class: 'button secondary', href: '/live' }, t('Live feed')), ' ', h('a', { class: 'button secondary', href: '/review' }, t('Review check-ins'))),
    list.children.length ? list : h('p', {}, t('No hunts yet.')), form, announce, players);
}

/** `/organise/{hunt}`: the editor. */
export async function editorPage(id) {
  await organiser();
  const [doc, base, drafts] = await Promise.all([
    api(`/v1/hunts/${enc(id)}/draft`, { auth: true }), basemap(), api('/v1/drafts', { auth: true }),
  ]);
  // Opening a published hunt makes no draft: the first change does.
  const hasDraft = drafts.some((d) => d.hunt === id);
  doc.features = doc.features || [];
  const state = { problems: [], warnings: [], saving: null, again: false, waiting: false, dirty: false, position: null, tool: 'draw', drawing: [], walk: null, circleAt: null, editing: null, hole: null };

  const status = h('p', { class: 'save-state', role: 'status' });
  const general = h('ul', { class: 'problems', 'data-pointer': '' });
  const mapBox = h('div', { class: 'map-box editor-map' });
  const toolPanel = h('div', { class: 'tool-panel' });
  const stopList = h('ol', { class: 'stop-editors' });
  const details = h('form', { class: 'hunt-details', novalidate: true });
  const revisions = h('ul', { class: 'revisions' });
  const publish = h('button', { type: 'button', class: 'publish' }, t('Publish'));
  const discard = h('button', { type: 'button', class: 'secondary' }, t('Discard the draft'));

  // ---- saving and validation
  const annotate = () => {
    for (const box of main.querySelectorAll('[data-pointer]')) {
      const pointer = box.dataset.pointer;
      const exact = box.dataset.exact !== undefined;
      const mine = (list) => list.filter((p) => exact ? p.pointer === pointer : (pointer === '' ? p.pointer === '' : p.pointer === pointer || p.pointer.startsWith(pointer + '/')));
      const problems = mine(state.problems);
      const warnings = mine(state.warnings);
      fill(box, ...problems.map((p) => h('li', { class: 'error' }, p.detail)), ...warnings.map((w) => h('li', { class: 'warning' }, `⚠ ${w.detail}`)));
    }
    // Problems that no field shows (a pointer deeper than the form's) go in the general list.
    const shown = new Set([...main.querySelectorAll('[data-pointer]')].map((b) => b.dataset.pointer));
    const orphans = state.problems.filter((p) => p.pointer !== '' && ![...shown].some((s) => s !== '' && (p.pointer === s || p.pointer.startsWith(s + '/'))));
    for (const p of orphans) general.append(h('li', { class: 'error' }, `${p.pointer}: ${p.detail}`));
    for (const w of state.warnings.filter((w) => w.pointer === '/hunt')) general.append(h('li', { class: 'warning' }, `⚠ ${w.detail}`));
    const n = state.problems.length;
    // "Saving…" until the last change is on the server (one waiting to be sent, or one made during a save).
    status.textContent = state.saving || state.waiting ? t('Saving…') : n ? t('Not saved: {count} to fix', { count: n }) : state.dirty ? t('Draft saved') : t('Published, no changes');
    status.className = `save-state${n ? ' bad' : ''}`;
    publish.disabled = n > 0 || !!state.saving;
  };
  // One save at a time: a change made while one is on its way sends the document again after it,
  // and the promise settles once the document as it is now is on the server (publish waits for it).
  const save = () => {
    state.again = true;
    if (state.saving) return state.saving;
    state.saving = (async () => {
      while (state.again) {
        state.again = false;
        annotate();
        try {
          const answer = await api(`/v1/hunts/${enc(id)}/draft`, { method: 'PUT', json: doc, auth: true });
          state.problems = [];
          state.warnings = answer.warnings || [];
          state.dirty = true;
        } catch (e) {
          if (!(e instanceof ApiError) || e.status !== 422) { state.again = false; say(e.message, 'bad'); throw e; }
          state.problems = e.errors && e.errors.length ? e.errors : [{ pointer: '', detail: e.message }];
        }
      }
    })().finally(() => {
      state.saving = null;
      annotate();
      // Stops with problems are drawn red: the map follows (not while a shape is being drawn).
      if (!state.drawing.length && !state.walk) drawMapNow({ keepView: true });
    });
    return state.saving;
  };
  let timer = null;
  const changed = (redrawStops = false) => {
    if (redrawStops) { drawStops(); drawMapNow(); }
    clearTimeout(timer);
    state.waiting = true;
    timer = setTimeout(() => { state.waiting = false; save().catch(() => {}); }, 500);
    status.textContent = t('Saving…');
  };

  // ---- pictures: the cover and each stop's, a phone's camera photo sent as it is, kept without metadata
  const pictureInput = (inputID, path, current, apply) => {
    const input = h('input', { id: inputID, type: 'file', accept: 'image/jpeg,image/heic,image/*', capture: 'environment' });
    const preview = h('div', { class: 'picture-preview' }, current ? h('span', { class: 'muted' }, t('A picture is set.')) : null);
    const error = h('p', { class: 'field-error', role: 'alert' });
    input.addEventListener('change', async () => {
      const file = input.files[0];
      if (!file) return;
      error.textContent = '';
      fill(preview, h('span', { class: 'muted' }, t('Sending the picture…')));
      try {
        const answer = await api(path, { method: 'PUT', body: file, auth: true, headers: { 'Content-Type': file.type || 'image/jpeg' } });
        apply(answer.image);
        const url = URL.createObjectURL(file);
        cleanups.push(() => URL.revokeObjectURL(url));
        fill(preview, h('img', { src: url, alt: t('The new picture') }));
        changed();
      } catch (e) {
        fill(preview);
        error.textContent = e.message;
      }
    });
    return [input, preview, error];
  };

  // ---- the hunt's fields
  const hunt = doc.hunt;
  const field = (key, label, input, help) => {
    input.id = `hunt-${key}`;
    input.name = key;
    return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, help ? h('p', { class: 'muted' }, help) : null,
      h('ul', { class: 'problems', 'data-pointer': `/hunt/${key}` }));
  };
  // Opening and closing times as the hunt's own clock shows them (its time zone), stored in UTC.
  const when = (key) => {
    const input = h('input', { type: 'datetime-local' });
    const zone = () => hunt.timezone || 'UTC';
    input.value = hunt[key] ? localInput(hunt[key], zone()) : '';
    input.addEventListener('input', () => {
      hunt[key] = input.value ? fromLocalInput(input.value, zone()) : null;
      changed();
    });
    return input;
  };
  const text = (key, attrs = {}) => {
    const input = h(attrs.multiline ? 'textarea' : 'input', { maxlength: attrs.max || 2000, ...(attrs.type ? { type: attrs.type } : {}), ...(attrs.placeholder ? { placeholder: attrs.placeholder } : {}) });
    input.value = hunt[key] ?? '';
    input.addEventListener('input', () => {
      const v = input.value.trim();
      if (attrs.numeric) hunt[key] = v === '' ? null : Number(v);
      else hunt[key] = v === '' && attrs.nullable ? null : input.value;
      changed();
    });
    return input;
  };
  const difficultyBox = h('select', {}, ...['easy', 'medium', 'hard'].map((d) => h('option', { value: d }, t(d))));
  difficultyBox.value = hunt.difficulty || 'easy';
  difficultyBox.addEventListener('change', () => { hunt.difficulty = difficultyBox.value; changed(); });
  const ordered = h('input', { type: 'checkbox' });
  ordered.checked = !!hunt.ordered;
  ordered.addEventListener('change', () => { hunt.ordered = ordered.checked; changed(); });
  // Who sees the hunt: a private one is for the players who join with its code (made here, kept
  // secret from players; the QR code of its join address is for printing or projecting).
  const visibility = h('select', {}, h('option', { value: 'public' }, t('everyone')), h('option', { value: 'private' }, t('only players with the join code')));
  visibility.value = hunt.visibility || 'public';
  const joinCode = h('input', { maxlength: 32, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', class: 'join-code' });
  joinCode.value = hunt.join_code || '';
  const joinBox = h('div', { class: 'join-code-box' });
  const showJoin = () => {
    joinBox.hidden = visibility.value !== 'private';
    const published = !!hunt.join_code && hunt.join_code === joinCode.value && state.publishedCode === hunt.join_code;
    fill(joinBox,
      field('join_code', t('Join code'), joinCode, t('Players type it, or scan the QR code of {url}.', { url: `${location.origin}/join/${hunt.join_code || '…'}` })),
      h('div', { class: 'stop-actions' },
        h('button', { type: 'button', class: 'secondary', onclick: () => { hunt.join_code = makeJoinCode(); joinCode.value = hunt.join_code; showJoin(); changed(); } }, t('New code'))),
      published ? joinQR(id) : h('p', { class: 'muted' }, t('The QR code is here once the hunt is published with this code.')));
  };
  visibility.addEventListener('change', () => {
    hunt.visibility = visibility.value;
    if (hunt.visibility === 'private' && !hunt.join_code) { hunt.join_code = makeJoinCode(); joinCode.value = hunt.join_code; }
    showJoin();
    changed();
  });
  joinCode.addEventListener('input', () => {
    hunt.join_code = joinCode.value.replace(/[\s-]+/g, '').toUpperCase() || undefined;
    changed();
  });
  // Played alone or in teams; the teams of a published hunt, made ahead of the event with their codes.
  const play = h('select', {}, h('option', { value: 'solo' }, t('alone')), h('option', { value: 'teams' }, t('in teams')), h('option', { value: 'either' }, t('alone or in teams')));
  play.value = hunt.play || 'solo';
  const teamSize = text('max_team_size', { numeric: true, type: 'number', placeholder: t('no limit') });
  const teamsBox = h('div', { class: 'teams-box' });
  const showTeams = () => {
    teamsBox.hidden = play.value === 'solo';
    if (!teamsBox.hidden) fill(teamsBox, field('max_team_size', t('Players a team at most'), teamSize), teamList(id));
  };
  play.addEventListener('change', () => {
    hunt.play = play.value === 'solo' ? undefined : play.value;
    showTeams();
    changed();
  });
  // Players' last positions on the organisers' live map (players are told on the hunt page).
  const sharePositions = h('input', { type: 'checkbox' });
  sharePositions.checked = !!hunt.share_positions;
  sharePositions.addEventListener('change', () => { hunt.share_positions = sharePositions.checked || undefined; changed(); });
  const proof = h('select', {}, h('option', { value: 'any' }, t('a photo or the phone’s position')), h('option', { value: 'photo' }, t('a photo')));
  // A list (what every stop asks for, from a hunt file) keeps its other entries when the photo changes.
  const others = () => (Array.isArray(hunt.proof) ? hunt.proof.filter((k) => k !== 'photo') : []);
  proof.value = Array.isArray(hunt.proof) ? (hunt.proof.includes('photo') ? 'photo' : 'any') : hunt.proof || 'any';
  proof.addEventListener('change', () => {
    const rest = others();
    hunt.proof = rest.length ? [...(proof.value === 'photo' ? ['photo'] : []), ...rest] : proof.value;
    changed();
  });
  fill(details,
    field('name', t('Name'), text('name', { max: 120 })),
    field('description', t('Description'), text('description', { multiline: true })),
    field('difficulty', t('Difficulty'), difficultyBox),
    field('bonus_points', t('Bonus points for finishing'), text('bonus_points', { numeric: true, type: 'number' })),
    field('ordered', t('Stops in order'), ordered),
    field('timezone', t('Time zone'), text('timezone', { placeholder: 'America/Los_Angeles' })),
    field('starts_at', t('Opens'), when('starts_at'), t('In the hunt’s time zone. Empty: open now.')),
    field('ends_at', t('Closes'), when('ends_at'), t('In the hunt’s time zone. Empty: never closes.')),
    field('max_accuracy_m', t('GPS accuracy accepted (m)'), text('max_accuracy_m', { numeric: true, type: 'number' })),
    field('tolerance_m', t('Tolerance around a stop (m)'), text('tolerance_m', { numeric: true, type: 'number' })),
    field('max_photo_age_s', t('Oldest photo accepted (s)'), text('max_photo_age_s', { numeric: true, type: 'number' })),
    field('proof', t('A check-in needs'), proof),
    field('visibility', t('Who sees the hunt'), visibility),
    joinBox,
    field('play', t('Players play'), play),
    teamsBox,
    field('share_positions', t('See players on my map'), sharePositions, t('While the hunt is open, the live page shows where each player was last. Players are told on the hunt page; positions are deleted when the hunt closes.')),
    h('div', { class: 'field' }, h('label', { for: 'hunt-image' }, t('Cover picture')),
      ...pictureInput('hunt-image', `/v1/hunts/${enc(id)}/draft/image`, hunt.image, (name) => { hunt.image = name; }),
      h('ul', { class: 'problems', 'data-pointer': '/hunt/image' })));

  // ---- stops
  const stopIDs = () => new Set(doc.features.map((f) => f.id));
  const newStopID = (name) => {
    const base = `${id}-${slug(name) || 'stop'}`.slice(0, 60);
    let candidate = base;
    for (let n = 2; stopIDs().has(candidate); n++) candidate = `${base}-${n}`;
    return candidate;
  };
  const addStop = (ring, name) => {
    const label = name || `${t('Stop')} ${doc.features.length + 1}`;
    doc.features.push({ type: 'Feature', id: newStopID(label), properties: { name: label, description: '', points: 50 }, geometry: { type: 'Polygon', coordinates: [closed(ring)] } });
    changed(true);
  };
  function drawStops() {
    if (!doc.features.length) {
      fill(stopList, h('li', { class: 'muted' }, t('No stops yet: draw one on the map.')));
      return;
    }
    fill(stopList, ...doc.features.map((feature, index) => {
      const p = feature.properties;
      const input = (key, attrs = {}) => {
        const el = h('input', { id: `stop-${index}-${key}`, name: key, ...attrs });
        if (attrs.type === 'checkbox') el.checked = !!p[key]; else el.value = p[key] ?? '';
        el.addEventListener(attrs.type === 'checkbox' ? 'change' : 'input', () => {
          if (attrs.type === 'checkbox') p[key] = el.checked;
          else if (attrs.type === 'number') p[key] = el.value === '' ? null : Number(el.value);
          else p[key] = el.value === '' && key === 'sponsor' ? undefined : el.value;
          if (key === 'name') drawMapNow();
          changed();
        });
        return el;
      };
      const move = (delta) => {
        const [f] = doc.features.splice(index, 1);
        doc.features.splice(index + delta, 0, f);
        changed(true);
      };
      return h('li', { class: 'stop-editor', 'data-stop': feature.id },
        h('div', { class: 'stop-head' }, h('strong', {}, `${index + 1}.`), ' ', h('code', {}, feature.id)),
        h('label', { for: `stop-${index}-name` }, t('Name')), input('name', { maxlength: 120 }),
        h('label', { for: `stop-${index}-description` }, t('Description')), input('description', { maxlength: 2000 }),
        h('label', { for: `stop-${index}-points` }, t('Points')), input('points', { type: 'number', min: 0 }),
        h('label', { class: 'check' }, input('featured', { type: 'checkbox' }), ` ${t('Featured')}`),
        h('label', { for: `stop-${index}-sponsor` }, t('Sponsor line')), input('sponsor', { maxlength: 80 }),
        stopProof(feature, index, id, changed),
        stopQuestion(feature, index, changed),
        h('label', { for: `stop-${index}-image` }, t('Photo of the stop')),
        ...pictureInput(`stop-${index}-image`, `/v1/hunts/${enc(id)}/draft/stops/${enc(feature.id)}/image`, p.image, (name) => { p.image = name; }),
        h('ul', { class: 'problems', 'data-pointer': `/features/${index}` }),
        h('div', { class: 'stop-actions' },
          h('button', { type: 'button', class: 'secondary', disabled: index === 0, onclick: () => move(-1) }, t('Up')),
          h('button', { type: 'button', class: 'secondary', disabled: index === doc.features.length - 1, onclick: () => move(1) }, t('Down')),
          h('button', { type: 'button', class: 'secondary', onclick: () => { stopWalk(); state.editing = index; state.hole = null; state.tool = 'draw'; state.drawing = rings(feature.geometry)[0].slice(0, -1).map(([lon, lat]) => ({ lat, lon })); showTool(); drawMapNow(); mapBox.scrollIntoView({ block: 'center' }); } }, t('Edit the shape')),
          // A hole: an area inside the stop that does not count (a building's courtyard, a road).
          feature.geometry.type === 'Polygon' ? h('button', { type: 'button', class: 'secondary', onclick: () => { stopWalk(); state.hole = index; state.editing = null; state.tool = 'draw'; state.drawing = []; showTool(); drawMapNow(); mapBox.scrollIntoView({ block: 'center' }); } }, t('Cut a hole')) : null,
          feature.geometry.type === 'Polygon' && feature.geometry.coordinates.length > 1 ? h('button', { type: 'button', class: 'secondary', onclick: () => { feature.geometry.coordinates.splice(1); changed(true); } }, t('Remove its holes')) : null,
          h('button', { type: 'button', class: 'secondary danger', onclick: () => { if (confirm(t('Remove the stop “{name}”?', { name: p.name }))) { doc.features.splice(index, 1); changed(true); } } }, t('Remove'))));
    }));
    annotate();
  }

  // ---- the map: stops, the shape being drawn, the phone. Over the operator's street tiles
  // (`vsh serve --tiles`) Leaflet draws it; without, vsh's SVG map over the organiser's basemap.
  let view = null;
  // A tap adds a corner (drawing) or places the circle.
  const tapAt = (at) => {
    if (state.tool === 'draw') { state.drawing.push(at); showTool(); drawMapNow({ keepView: true }); }
    else if (state.tool === 'circle') { state.circleAt = at; showTool(); drawMapNow({ keepView: true }); }
  };
  const tiled = await leafletEditor(mapBox, {
    tap: tapAt,
    move: (index, at) => { state.drawing[index] = at; },
    moved: () => showTool(),
  }, t('Map of the hunt’s stops')).catch(() => null);
  const scene = () => ({
    stops: doc.features.flatMap((feature, index) => index === state.editing ? [] : [{
      id: feature.id, name: feature.properties.name, number: index + 1, geometry: feature.geometry,
      bad: state.problems.some((p) => p.pointer.startsWith(`/features/${index}/`) || p.pointer === `/features/${index}`),
    }]),
    drawing: state.drawing, walk: state.walk ? state.walk.kept : [], position: state.position,
    circle: state.circleAt ? circle(state.circleAt, Number(state.radius || 20)) : null,
  });
  function extent() {
    const points = doc.features.flatMap((f) => rings(f.geometry).flat()).map(([lon, lat]) => ({ lat, lon }));
    points.push(...state.drawing);
    if (state.walk) points.push(...state.walk.kept);
    if (state.position) points.push(state.position);
    if (state.circleAt) points.push(state.circleAt);
    if (!points.length) return null;
    let minLat = Math.min(...points.map((p) => p.lat)), maxLat = Math.max(...points.map((p) => p.lat));
    let minLon = Math.min(...points.map((p) => p.lon)), maxLon = Math.max(...points.map((p) => p.lon));
    const cos = Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
    // At least about 150 m across, with room around.
    const padLat = Math.max((maxLat - minLat) * 0.15, 75 / M);
    const padLon = Math.max((maxLon - minLon) * 0.15, 75 / (M * cos));
    return { minLat: minLat - padLat, maxLat: maxLat + padLat, minLon: minLon - padLon, maxLon: maxLon + padLon, cos };
  }
  function drawMapNow({ keepView = false } = {}) {
    if (tiled) { tiled.draw(scene(), { keepView }); return; }
    if (!keepView || !view) view = extent();
    if (!view) {
      fill(mapBox, h('p', { class: 'map-empty' }, t('The map starts where you are: allow location, or import a file.')));
      return;
    }
    const W = 1000;
    const widthM = (view.maxLon - view.minLon) * M * view.cos;
    const heightM = (view.maxLat - view.minLat) * M;
    const H = Math.max(600, Math.min(1400, Math.round((W * heightM) / widthM)));
    const scale = Math.min(W / widthM, H / heightM);
    const ox = (W - widthM * scale) / 2, oy = (H - heightM * scale) / 2;
    const x = (lon) => ox + (lon - view.minLon) * M * view.cos * scale;
    const y = (lat) => H - oy - (lat - view.minLat) * M * scale;
    view.toMap = (px, py) => ({ lon: view.minLon + (px - ox) / (M * view.cos * scale), lat: view.minLat + (H - oy - py) / (M * scale) });
    view.scale = scale;
    const u = W / 360;
    const svg = h('svg:svg', { viewBox: `0 0 ${W} ${H}`, class: 'map editor', role: 'img', 'aria-label': t('Map of the hunt’s stops') });
    svg.append(h('svg:rect', { x: 0, y: 0, width: W, height: H, class: 'ground' }));
    const gridM = [10, 20, 50, 100, 200, 500, 1000].find((m) => Math.max(widthM, heightM) / m <= 14) || 2000;
    for (let gx = ox % (gridM * scale); gx < W; gx += gridM * scale) svg.append(h('svg:line', { x1: gx, y1: 0, x2: gx, y2: H, class: 'grid' }));
    for (let gy = H % (gridM * scale); gy < H; gy += gridM * scale) svg.append(h('svg:line', { x1: 0, y1: gy, x2: W, y2: gy, class: 'grid' }));
    svg.append(basemapLayer(base, view, x, y, u, W, H));
    const bads = new Set(scene().stops.filter((stop) => stop.bad).map((stop) => stop.id));
    doc.features.forEach((feature, index) => {
      if (index === state.editing) return;
      const d = rings(feature.geometry).map((ring) => 'M' + ring.map(([lon, lat]) => `${x(lon).toFixed(1)},${y(lat).toFixed(1)}`).join('L') + 'Z').join('');
      const bad = bads.has(feature.id);
      svg.append(h('svg:path', { d, class: `stop${bad ? ' bad' : ''}`, 'data-stop': feature.id }, h('svg:title', {}, feature.properties.name)));
      const c = centre(feature.geometry);
      if (c) svg.append(h('svg:g', { class: 'marker', transform: `translate(${x(c.lon).toFixed(1)},${y(c.lat).toFixed(1)})` }, h('svg:circle', { r: 11 * u }), h('svg:text', { 'text-anchor': 'middle', dy: '0.35em', 'font-size': 12 * u }, String(index + 1))));
    });
    const pts = (list) => list.map((p) => `${x(p.lon).toFixed(1)},${y(p.lat).toFixed(1)}`).join(' ');
    if (state.walk && state.walk.kept.length) svg.append(h('svg:polyline', { points: pts(state.walk.kept), class: 'walk' }));
    if (state.circleAt) {
      const ring = circle(state.circleAt, Number(state.radius || 20));
      svg.append(h('svg:polygon', { points: pts(ring.map(([lon, lat]) => ({ lat, lon }))), class: 'drawing' }));
    }
    if (state.drawing.length) {
      svg.append(h(state.drawing.length > 2 ? 'svg:polygon' : 'svg:polyline', { points: pts(state.drawing), class: 'drawing' }));
      state.drawing.forEach((p, i) => {
        const handle = h('svg:circle', { cx: x(p.lon).toFixed(1), cy: y(p.lat).toFixed(1), r: 9 * u, class: 'corner', 'data-corner': i });
        svg.append(handle);
      });
    }
    if (state.position) {
      svg.append(h('svg:circle', { cx: x(state.position.lon), cy: y(state.position.lat), r: Math.min(400, (state.position.accuracy || 0) * scale), class: 'me-accuracy' }));
      svg.append(h('svg:circle', { cx: x(state.position.lon), cy: y(state.position.lat), r: 6 * u, class: 'me-dot' }));
    }
    const barM = [5, 10, 20, 50, 100, 200, 500, 1000].filter((m) => m * scale <= W * 0.35).pop() || 5;
    svg.append(h('svg:g', { class: 'scale', transform: `translate(${10 * u},${H - 12 * u})` },
      h('svg:rect', { x: -4 * u, y: -16 * u, width: barM * scale + 56 * u, height: 24 * u, rx: 4 * u, class: 'scale-back' }),
      h('svg:line', { x1: 0, y1: 0, x2: barM * scale, y2: 0 }),
      h('svg:text', { x: barM * scale + 6 * u, y: 4 * u, 'font-size': 12 * u }, `${barM} m`)));
    mapBox.replaceChildren(svg);
    // Taps add corners (drawing) or place the circle; a corner dragged moves.
    let dragging = null;
    const toSVG = (event) => {
      const box = svg.getBoundingClientRect();
      return [((event.clientX - box.left) / box.width) * W, ((event.clientY - box.top) / box.height) * H];
    };
    svg.addEventListener('pointerdown', (event) => {
      const corner = event.target.dataset && event.target.dataset.corner;
      if (corner !== undefined && state.tool === 'draw') {
        dragging = Number(corner);
        svg.setPointerCapture(event.pointerId);
        event.preventDefault();
      }
    });
    svg.addEventListener('pointermove', (event) => {
      if (dragging === null) return;
      const [px, py] = toSVG(event);
      state.drawing[dragging] = view.toMap(px, py);
      const handle = svg.querySelector(`[data-corner="${dragging}"]`);
      handle.setAttribute('cx', px.toFixed(1));
      handle.setAttribute('cy', py.toFixed(1));
      const shape = svg.querySelector('.drawing');
      if (shape) shape.setAttribute('points', pts(state.drawing));
    });
    svg.addEventListener('pointerup', (event) => {
      if (dragging !== null) { dragging = null; showTool(); return; }
      const [px, py] = toSVG(event);
      tapAt(view.toMap(px, py));
    });
  }

  // ---- the tools
  const tools = h('div', { class: 'tools', role: 'group', 'aria-label': t('How to make a stop') },
    ...[['draw', t('Draw')], ['circle', t('Circle')], ['walk', t('Walk')], ['import', t('Import')]].map(([key, label]) =>
      h('button', { type: 'button', class: 'secondary', 'data-tool': key, onclick: () => { stopWalk(); if (key !== 'draw') { state.hole = null; state.editing = null; state.drawing = []; } state.tool = key; showTool(); drawMapNow({ keepView: true }); } }, label)));
  function showTool() {
    for (const b of tools.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.tool === state.tool));
    if (state.tool === 'draw') {
      const n = state.drawing.length;
      fill(toolPanel,
        h('p', {}, state.editing !== null ? t('Drag the corners of “{name}”, or tap to add more.', { name: doc.features[state.editing].properties.name })
          : state.hole !== null ? t('Tap the corners of a hole in “{name}”: an area inside it that does not count.', { name: doc.features[state.hole].properties.name })
            : n ? t('{count} corners: tap for more, drag one to move it.', { count: n }) : t('Tap the map at each corner of the stop.')),
        h('div', { class: 'stop-actions' },
          h('button', { type: 'button', class: 'finish-shape', disabled: n < 3, onclick: finishDrawing },
            state.editing !== null ? t('Keep this shape') : state.hole !== null ? t('Make it a hole') : t('Make it a stop')),
          h('button', { type: 'button', class: 'secondary', disabled: !n, onclick: () => { state.drawing.pop(); showTool(); drawMapNow({ keepView: true }); } }, t('Undo a corner')),
          h('button', { type: 'button', class: 'secondary', disabled: !n && state.editing === null && state.hole === null, onclick: () => { state.drawing = []; state.editing = null; state.hole = null; showTool(); drawMapNow(); } }, t('Cancel'))));
    } else if (state.tool === 'circle') {
      const radius = h('input', { id: 'circle-radius', type: 'number', min: 5, max: 500, value: state.radius || 20 });
      radius.addEventListener('input', () => { state.radius = Number(radius.value) || 20; drawMapNow({ keepView: true }); });
      fill(toolPanel,
        h('p', {}, state.circleAt ? t('A circle around the chosen point; tap elsewhere to move it.') : t('Tap the map, or use where you are.')),
        h('label', { for: 'circle-radius' }, t('Radius (m)')), radius,
        h('div', { class: 'stop-actions' },
          h('button', { type: 'button', class: 'secondary', disabled: !state.position, onclick: () => { state.circleAt = { ...state.position }; showTool(); drawMapNow(); } }, t('Around me')),
          h('button', { type: 'button', class: 'finish-shape', disabled: !state.circleAt, onclick: () => { addStop(circle(state.circleAt, state.radius || 20).map(([lon, lat]) => ({ lat, lon }))); state.circleAt = null; showTool(); } }, t('Make it a stop'))));
    } else if (state.tool === 'walk') {
      const w = state.walk;
      fill(toolPanel,
        h('p', {}, w ? t('Walking: {kept} positions kept, {dropped} too rough (over {limit} m).', { kept: w.kept.length, dropped: w.dropped, limit: WALK_ACCURACY })
          : t('Walk around the stop’s edge with the phone; vsh keeps the positions accurate to {limit} m.', { limit: WALK_ACCURACY })),
        h('div', { class: 'stop-actions' },
          w ? h('button', { type: 'button', class: 'finish-shape', disabled: w.kept.length < 3, onclick: finishWalk }, t('Finish: close the ring'))
            : h('button', { type: 'button', class: 'start-walk', onclick: startWalk }, t('Start walking')),
          w ? h('button', { type: 'button', class: 'secondary', onclick: () => { stopWalk(); showTool(); drawMapNow(); } }, t('Cancel')) : null));
    } else {
      const file = h('input', { id: 'import-file', type: 'file', accept: '.geojson,.json,.kml,.gpx,application/geo+json,application/vnd.google-earth.kml+xml,application/gpx+xml' });
      const error = h('p', { class: 'field-error', role: 'alert' });
      file.addEventListener('change', async () => {
        error.textContent = '';
        try {
          const found = importShapes(await file.files[0].text(), file.files[0].name);
          if (!found.length) throw new Error(t('No polygon or track in this file.'));
          for (const s of found) addStop(s.ring, s.name);
          say(t('{count} stops imported.', { count: found.length }));
        } catch (e) {
          error.textContent = e.message;
        }
      });
      fill(toolPanel, h('label', { for: 'import-file' }, t('A GeoJSON, KML or GPX file (polygons become stops; a GPX track is walked)')), file, error);
    }
  }
  function finishDrawing() {
    if (state.drawing.length < 3) return;
    if (state.hole !== null) {
      doc.features[state.hole].geometry.coordinates.push(closed(state.drawing));
      state.hole = null;
      changed(true);
    } else if (state.editing !== null) {
      // The outer ring changes; the stop's holes (and its other polygons) stay.
      const g = doc.features[state.editing].geometry;
      if (g.type === 'MultiPolygon') g.coordinates[0][0] = closed(state.drawing);
      else g.coordinates = [closed(state.drawing), ...g.coordinates.slice(1)];
      state.editing = null;
      changed(true);
    } else {
      addStop(state.drawing);
    }
    state.drawing = [];
    showTool();
    drawMapNow();
  }
  const WALK_ACCURACY = 20;
  function startWalk() {
    if (!navigator.geolocation) { say(t('This browser cannot tell where you are.'), 'bad'); return; }
    state.walk = { kept: [], dropped: 0, watch: null };
    state.walk.watch = navigator.geolocation.watchPosition((fix) => {
      if (!state.walk) return;
      const p = { lat: fix.coords.latitude, lon: fix.coords.longitude, accuracy: fix.coords.accuracy };
      state.position = p;
      if (p.accuracy > WALK_ACCURACY) state.walk.dropped++;
      else state.walk.kept.push(p);
      showTool();
      drawMapNow();
    }, () => { say(t('Location is off: allow it for this site to walk a stop.'), 'bad'); }, { enableHighAccuracy: true, maximumAge: 0 });
    showTool();
  }
  function stopWalk() {
    if (state.walk && state.walk.watch !== null) navigator.geolocation.clearWatch(state.walk.watch);
    state.walk = null;
  }
  function finishWalk() {
    const ring = simplify(state.walk.kept, 2);
    stopWalk();
    if (ring.length < 3) { say(t('Too few distinct positions: walk a wider ring.'), 'bad'); showTool(); return; }
    addStop(ring);
    showTool();
  }
  cleanups.push(stopWalk);

  // The phone's position, for the map's start, circles and walks.
  if (navigator.geolocation) {
    const watch = navigator.geolocation.watchPosition((fix) => {
      const first = !state.position;
      state.position = { lat: fix.coords.latitude, lon: fix.coords.longitude, accuracy: fix.coords.accuracy };
      if (!state.walk) { if (first) showTool(); drawMapNow({ keepView: !first }); }
    }, () => {}, { enableHighAccuracy: true, maximumAge: 30000 });
    cleanups.push(() => navigator.geolocation.clearWatch(watch));
  }

  // ---- publishing and history
  const loadRevisions = async () => {
    const list = await api(`/v1/hunts/${enc(id)}/revisions`, { auth: true });
    fill(revisions, ...(list.length ? list.map((r) => h('li', {},
      h('strong', {}, t('Revision {n}', { n: r.revision })), ` · ${formatTime(r.published_at, hunt.timezone)} · `,
      r.source === 'console' ? t('from the console by {who}', { who: r.by || '?' }) : t('from the hunt files'))) : [h('li', { class: 'muted' }, t('Not published yet.'))]));
  };
  publish.addEventListener('click', async () => {
    clearTimeout(timer);
    state.waiting = false;
    await save().catch(() => {});
    if (state.problems.length) return;
    try {
      const answer = await api(`/v1/hunts/${enc(id)}/publish`, { method: 'POST', auth: true });
      state.dirty = false;
      state.publishedCode = hunt.join_code;
      showJoin();
      showTeams();
      say(t('Published: revision {n}. Players see it now.', { n: answer.revision }), 'good');
      annotate();
      await loadRevisions();
    } catch (e) {
      if (e.status === 422 && e.errors) { state.problems = e.errors; annotate(); } else say(e.message, 'bad');
    }
  });
  // Running the event: open or close the hunt now (the window set and the draft published with
  // it), and the results for a spreadsheet.
  const setWindowNow = (key) => {
    if (key === 'ends_at' && !confirm(t('End the hunt now? Check-ins stop counting at once.'))) return;
    hunt[key] = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (key === 'starts_at' && hunt.ends_at && Date.parse(hunt.ends_at) <= Date.now()) hunt.ends_at = null;
    for (const k of ['starts_at', 'ends_at']) {
      const input = main.querySelector(`#hunt-${k}`);
      if (input) input.value = hunt[k] ? localInput(hunt[k], hunt.timezone || 'UTC') : '';
    }
    publish.click();
  };
  const startNow = h('button', { type: 'button', class: 'secondary', onclick: () => setWindowNow('starts_at') }, t('Start the hunt now'));
  const endNow = h('button', { type: 'button', class: 'secondary', onclick: () => setWindowNow('ends_at') }, t('End the hunt now'));
  // An organiser's download (the token goes in a header, so the file is fetched, then saved).
  const download = async (file) => {
    const answer = await fetch(`/v1/hunts/${enc(id)}/${file}`, { headers: authHeaders() });
    if (!answer.ok) { say(answer.status === 404 ? t('Not published yet.') : t('Something went wrong.'), 'bad'); return; }
    const url = URL.createObjectURL(await answer.blob());
    const link = h('a', { href: url, download: `${id}-${file}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };
  const results = h('span', { class: 'downloads' },
    h('button', { type: 'button', class: 'secondary', onclick: () => download('results.csv') }, t('Download the results (CSV)')),
    h('button', { type: 'button', class: 'secondary', onclick: () => download('photos.zip') }, t('Download the photos (ZIP)')),
    h('a', { class: 'button secondary', href: `/live?hunt=${enc(id)}` }, t('Live feed and map')));
  discard.addEventListener('click', async () => {
    if (!confirm(t('Discard the draft and go back to the published hunt?'))) return;
    try { await api(`/v1/hunts/${enc(id)}/draft`, { method: 'DELETE', auth: true }); } catch (e) { if (e.status !== 404) { say(e.message, 'bad'); return; } }
    go(`/organise/${enc(id)}`, { replace: true });
  });

  fill(main,
    h('p', {}, h('a', { href: '/organise' }, `← ${t('All hunts')}`)),
    h('h1', {}, hunt.name || id), status, general,
    h('section', { class: 'editor-section' }, h('h2', {}, t('Stops on the map')), tools, mapBox, toolPanel),
    h('section', { class: 'editor-section' }, h('h2', {}, t('Stops')), stopList),
    h('section', { class: 'editor-section' }, h('h2', {}, t('The hunt')), details),
    h('section', { class: 'editor-section' }, h('h2', {}, t('Publish')),
      h('p', { class: 'muted' }, t('Players keep seeing the published hunt until you publish the draft.')),
      h('div', { class: 'stop-actions' }, publish, discard),
      h('h3', {}, t('Running the event')),
      h('p', { class: 'muted' }, t('Starting or ending sets the opening or closing time to now and publishes the draft with it.')),
      h('div', { class: 'stop-actions' }, startNow, endNow, results),
      adjustForm(id),
      h('h3', {}, t('History')), revisions));
  state.publishedCode = doc.hunt.join_code;
  showJoin();
  showTeams();
  drawStops();
  showTool();
  drawMapNow();
  annotate();
  // A saved draft is checked again at once (its warnings shown); a published hunt is valid as it is.
  await Promise.all([hasDraft ? save().catch(() => {}) : Promise.resolve(), loadRevisions()]);
  state.dirty = hasDraft;
  annotate();
}

// ---- join codes

/** A new join code: 8 capital letters and digits without look-alikes (no 0, O, 1, I), as vsh makes them. */
export function makeJoinCode(length = 8) {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  // 248 = 8 × 31: bytes at or above it are drawn again, so that each character is equally likely.
  let code = '';
  for (let i = 0; code.length < length; i++) {
    const b = i < bytes.length ? bytes[i] : crypto.getRandomValues(new Uint8Array(1))[0];
    if (b < 248) code += alphabet[b % 31];
  }
  return code;
}

/** Points given or taken in the hunt, with the reason the player (or team) is told. */
function adjustForm(id) {
  const who = h('input', { id: 'adjust-who', maxlength: 80, autocomplete: 'off', placeholder: t('a player’s name, or a team’s') });
  const points = h('input', { id: 'adjust-points', type: 'number', step: 1, inputmode: 'numeric', placeholder: '+25 / -10' });
  const reason = h('input', { id: 'adjust-reason', maxlength: 200, autocomplete: 'off', placeholder: t('Best photo of the day') });
  const problem = h('p', { class: 'error', role: 'alert' });
  return h('form', { class: 'adjust-form', onsubmit: async (event) => {
    event.preventDefault();
    problem.textContent = '';
    const body = { hunt: id, points: Number(points.value), reason: reason.value };
    // A team of this hunt by its name, else a player.
    try {
      const teams = await api(`/v1/hunts/${enc(id)}/teams`, { auth: true }).catch(() => ({ teams: [] }));
      const team = teams.teams.find((x) => x.name.toLowerCase() === who.value.trim().toLowerCase());
      if (team) body.team = team.id; else body.player = who.value.trim();
      const made = await api('/v1/adjustments', { method: 'POST', json: body, auth: true });
      say(t('{points} points for {who}: {reason}', { points: made.points > 0 ? `+${made.points}` : String(made.points), who: made.team ? made.team.name : made.player, reason: made.reason }), 'good');
      who.value = ''; points.value = ''; reason.value = '';
    } catch (error) {
      problem.textContent = error.message;
    }
  } },
  h('h3', {}, t('Give or take points')),
  h('div', { class: 'field' }, h('label', { for: 'adjust-who' }, t('Who')), who),
  h('div', { class: 'field' }, h('label', { for: 'adjust-points' }, t('Points (below 0 takes them)')), points),
  h('div', { class: 'field' }, h('label', { for: 'adjust-reason' }, t('Why (the player is told)')), reason),
  problem, h('button', { type: 'submit', class: 'secondary' }, t('Adjust')));
}

/** The published hunt's teams with their codes, and a form to make one ahead of the event. */
function teamList(id) {
  const box = h('div', { class: 'team-list' });
  const name = h('input', { id: 'new-team', maxlength: 40, autocomplete: 'off' });
  const problem = h('p', { class: 'error', role: 'alert' });
  async function draw() {
    let answer;
    try {
      answer = await api(`/v1/hunts/${enc(id)}/teams`, { auth: true });
    } catch (_) {
      fill(box, h('p', { class: 'muted' }, t('Teams can be made once the hunt is published.')));
      return;
    }
    if (answer.play === 'solo') {
      fill(box, h('p', { class: 'muted' }, t('Publish the hunt as played in teams, then make its teams here.')));
      return;
    }
    fill(box, h('h3', {}, t('Teams')),
      answer.teams.length ? h('table', { class: 'teams' },
        h('thead', {}, h('tr', {}, [t('Team'), t('Code'), t('Members')].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, answer.teams.map((team) => h('tr', { 'data-team': team.name },
          h('th', { scope: 'row' }, h('a', { href: `/teams/${team.id}` }, team.name)),
          h('td', { class: 'join-code' }, team.join_code || ''), h('td', {}, team.members.join(', ') || t('nobody yet'))))))
        : h('p', { class: 'muted' }, t('No teams yet. Players make their own, or make them here and hand out the codes.')),
      h('div', { class: 'inline' }, h('label', { for: 'new-team', class: 'visually-hidden' }, t('Team name')), name,
        h('button', { type: 'button', class: 'secondary', onclick: async () => {
          problem.textContent = '';
          try {
            await api(`/v1/hunts/${enc(id)}/teams`, { method: 'POST', json: { name: name.value }, auth: true });
            name.value = '';
            await draw();
          } catch (error) {
            problem.textContent = error.message;
          }
        } }, t('Make a team'))),
      problem);
  }
  draw();
  return box;
}

/**
 * What a check-in at a stop must bring (`proof`), and its codes: a printed one (made here, kept from
 * players; its QR code is for printing once published) and a screen's rotating one (`true`: the
 * server makes its secret at publish and keeps it).
 */
function stopProof(feature, index, huntID, changed) {
  const p = feature.properties;
  const box = h('fieldset', { class: 'stop-proof' });
  const draw = () => {
    const proof = new Set(p.proof || []);
    const tick = (kind, label) => {
      const el = h('input', { type: 'checkbox', name: `proof-${kind}` });
      el.checked = proof.has(kind);
      el.addEventListener('change', () => {
        if (el.checked) proof.add(kind); else proof.delete(kind);
        p.proof = proof.size ? ['photo', 'fix', 'code', 'answer'].filter((k) => proof.has(k)) : undefined;
        changed();
      });
      return h('label', { class: 'check' }, el, ` ${label}`);
    };
    const code = h('input', { id: `stop-${index}-code`, name: 'code', maxlength: 40, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', class: 'join-code', value: p.code || '' });
    code.addEventListener('input', () => { p.code = code.value.replace(/[\s-]+/g, '').toUpperCase() || undefined; changed(); });
    const rotating = h('input', { type: 'checkbox', name: 'rotating_code' });
    rotating.checked = !!p.rotating_code;
    rotating.addEventListener('change', () => { p.rotating_code = rotating.checked ? (p.rotating_code || true) : undefined; changed(); draw(); });
    const qr = h('div', { class: 'join-qr' });
    fill(box,
      h('legend', {}, t('Proof at this stop')),
      h('p', { class: 'help' }, t('A check-in here must bring, besides what the hunt asks:')),
      tick('photo', t('a photo')), tick('fix', t('the phone’s own position')), tick('code', t('the stop’s code')),
      tick('answer', t('the right answer to its question')),
      h('label', { for: `stop-${index}-code` }, t('Printed code')),
      code,
      h('p', { class: 'help' }, t('Indoors, where GPS fails, players scan it or type it. Never shown to players.')),
      h('div', { class: 'stop-actions' },
        h('button', { type: 'button', class: 'secondary', onclick: () => { p.code = makeJoinCode(10); changed(); draw(); } }, t('New code')),
        p.code ? h('button', { type: 'button', class: 'secondary', onclick: () => { p.code = undefined; changed(); draw(); } }, t('No code')) : null,
        p.code ? h('button', { type: 'button', class: 'secondary', onclick: () => stopQR(feature.id, qr) }, t('QR code to print')) : null),
      qr,
      h('label', { class: 'check' }, rotating, ` ${t('A screen at the stop shows a code that changes every 30 s')}`),
      p.rotating_code ? h('p', { class: 'help' }, h('a', { href: `/display/${encodeURIComponent(feature.id)}` }, t('Open the screen’s page')), ` ${t('once the hunt is published.')}`) : null);
  };
  draw();
  return box;
}

/**
 * The stop's question (`question`): its text, the right answers (one a line: a text, a number, or
 * a number ± its tolerance), the choices players pick from (none: they type), the answer's points
 * and the tries. The answers stay with the organisers: players are sent the question alone.
 */
function stopQuestion(feature, index, changed) {
  const p = feature.properties;
  const id = (name) => `stop-${index}-${name}`;
  const answerLine = (a) => typeof a === 'number' ? String(a)
    : a && typeof a === 'object' ? `${a.number}${a.tolerance ? ` ± ${a.tolerance}` : ''}` : String(a);
  const parseLine = (line) => {
    const m = line.match(/^\s*(-?\d+(?:[.,]\d+)?)\s*(?:±|\+-|\+\/-)\s*(\d+(?:[.,]\d+)?)\s*$/);
    if (m) return { number: Number(m[1].replace(',', '.')), tolerance: Number(m[2].replace(',', '.')) };
    if (/^\s*-?\d+(?:\.\d+)?\s*$/.test(line) && !(p.choices || []).length) return Number(line);
    return line.trim();
  };
  const question = h('input', { id: id('question'), maxlength: 300, value: p.question || '' });
  const answers = h('textarea', { id: id('answers'), rows: 3 }, (p.answers || []).map(answerLine).join('\n'));
  const choices = h('textarea', { id: id('choices'), rows: 3 }, (p.choices || []).join('\n'));
  const points = h('input', { id: id('answer-points'), type: 'number', min: 0, step: 1, value: p.answer_points ?? 10 });
  const tries = h('input', { id: id('attempts'), type: 'number', min: 1, max: 10, step: 1, value: p.attempts ?? 3 });
  const lines = (el) => el.value.split('\n').map((l) => l.trim()).filter(Boolean);
  const store = () => {
    const text = question.value.trim();
    if (!text) {
      for (const key of ['question', 'answers', 'choices', 'answer_points', 'attempts']) delete p[key];
    } else {
      p.question = text;
      const picks = lines(choices);
      if (picks.length) p.choices = picks; else delete p.choices;
      p.answers = lines(answers).map(parseLine);
      p.answer_points = Math.max(0, Math.round(Number(points.value) || 0));
      p.attempts = Math.min(10, Math.max(1, Math.round(Number(tries.value) || 3)));
    }
    changed();
  };
  for (const el of [question, answers, choices, points, tries]) el.addEventListener('input', store);
  return h('fieldset', { class: 'stop-proof stop-question-editor' },
    h('legend', {}, t('Question at this stop')),
    h('p', { class: 'help' }, t('Something only someone standing there can answer: a date on a plaque, a word on a sign. Leave it empty for none.')),
    h('label', { for: id('question') }, t('Question')), question,
    h('label', { for: id('answers') }, t('Right answers, one a line')), answers,
    h('p', { class: 'help' }, t('A text (capitals, accents, spaces and punctuation do not count), a number, or a number ± how far off it may be: 1998 ± 1. Never shown to players.')),
    h('label', { for: id('choices') }, t('Choices to pick from, one a line (empty: players type)')), choices,
    h('div', { class: 'row' },
      h('label', { for: id('answer-points') }, t('Points for the right answer')), points,
      h('label', { for: id('attempts') }, t('Tries')), tries));
}

/** A published stop's printed QR code, fetched with the organiser's token, to save and print. */
async function stopQR(stopID, box) {
  fill(box, h('p', { class: 'muted' }, t('Loading…')));
  try {
    const [svg, png] = await Promise.all(['svg', 'png'].map(async (kind) => {
      const answer = await fetch(`/v1/stops/${encodeURIComponent(stopID)}/code.${kind}`, { headers: authHeaders() });
      if (!answer.ok) throw new Error(String(answer.status));
      const url = URL.createObjectURL(await answer.blob());
      cleanups.push(() => URL.revokeObjectURL(url));
      return url;
    }));
    fill(box, h('img', { src: svg, alt: t('QR code of the stop’s code'), width: 200, height: 200 }),
      h('p', {}, h('a', { href: svg, download: `${stopID}-code.svg` }, t('Save the QR code (SVG, to print)')), ' · ',
        h('a', { href: png, download: `${stopID}-code.png` }, t('PNG'))));
  } catch (_) {
    fill(box, h('p', { class: 'muted' }, t('The QR code is here once the hunt is published with this code.')));
  }
}

/** The published hunt's join QR code (an organiser's request, so fetched with the token), to save. */
function joinQR(id) {
  const box = h('div', { class: 'join-qr' }, h('p', { class: 'muted' }, t('Loading…')));
  (async () => {
    try {
      const [svg, png] = await Promise.all(['svg', 'png'].map(async (kind) => {
        const answer = await fetch(`/v1/hunts/${encodeURIComponent(id)}/join-code.${kind}`, { headers: authHeaders() });
        if (!answer.ok) throw new Error(String(answer.status));
        const url = URL.createObjectURL(await answer.blob());
        cleanups.push(() => URL.revokeObjectURL(url));
        return url;
      }));
      fill(box, h('img', { src: svg, alt: t('QR code of the join address'), width: 200, height: 200 }),
        h('p', {}, h('a', { href: svg, download: `${id}-join-code.svg` }, t('Save the QR code (SVG, to print)')), ' · ',
          h('a', { href: png, download: `${id}-join-code.png` }, t('PNG'))));
    } catch (_) {
      fill(box, h('p', { class: 'muted' }, t('The QR code is here once the hunt is published with this code.')));
    }
  })();
  return box;
}

// ---- times

/** The offset of a time zone from UTC at an instant, in milliseconds. */
function zoneOffset(ms, zone) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second) - Math.floor(ms / 1000) * 1000;
}

/** An RFC 3339 time as a datetime-local value on the clock of `zone`. */
export function localInput(iso, zone) {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  return new Date(ms + zoneOffset(ms, zone)).toISOString().slice(0, 16);
}

/** A datetime-local value on the clock of `zone` as an RFC 3339 time in UTC. */
export function fromLocalInput(value, zone) {
  const wall = Date.parse(value + ':00Z');
  let ms = wall - zoneOffset(wall, zone);
  ms = wall - zoneOffset(ms, zone);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

// ---- geometry

/** A ring as GeoJSON positions, closed, at most 7 decimals. */
function closed(points) {
  const ring = points.map((p) => [Number(p.lon.toFixed(7)), Number(p.lat.toFixed(7))]);
  if (ring.length && (ring[0][0] !== ring[ring.length - 1][0] || ring[0][1] !== ring[ring.length - 1][1])) ring.push([...ring[0]]);
  return ring;
}

/** A circle of `radius` metres around a position, 32 corners, as [lon, lat]. */
export function circle(at, radius) {
  const cos = Math.cos((at.lat * Math.PI) / 180);
  return Array.from({ length: 32 }, (_, i) => {
    const a = (i / 32) * 2 * Math.PI;
    return [at.lon + (radius * Math.cos(a)) / (M * cos), at.lat + (radius * Math.sin(a)) / M];
  });
}

/** Douglas–Peucker in metres: the walked positions without the ones within `tolerance` of a line. */
export function simplify(points, tolerance) {
  if (points.length < 3) return points.slice();
  const cos = Math.cos((points[0].lat * Math.PI) / 180);
  const xy = points.map((p) => [(p.lon - points[0].lon) * M * cos, (p.lat - points[0].lat) * M]);
  const keep = new Array(points.length).fill(false);
  keep[0] = keep[points.length - 1] = true;
  const stack = [[0, points.length - 1]];
  while (stack.length) {
    const [a, b] = stack.pop();
    let best = -1, index = -1;
    for (let i = a + 1; i < b; i++) {
      const d = lineDistance(xy[i], xy[a], xy[b]);
      if (d > best) { best = d; index = i; }
    }
    if (best > tolerance) { keep[index] = true; stack.push([a, index], [index, b]); }
  }
  const kept = points.filter((_, i) => keep[i]);
  // A ring walked back to its start ends where it began: the last position is the first.
  const [fx, fy] = xy[0], [lx, ly] = xy[points.length - 1];
  if (kept.length > 3 && Math.hypot(fx - lx, fy - ly) < tolerance * 2) kept.pop();
  return kept;
}

function lineDistance([px, py], [ax, ay], [bx, by]) {
  const dx = bx - ax, dy = by - ay;
  const length = dx * dx + dy * dy;
  if (length === 0) return Math.hypot(px - ax, py - ay);
  const s = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / length));
  return Math.hypot(ax + s * dx - px, ay + s * dy - py);
}

/** The shapes of an imported file: [{name, ring: [{lat, lon}]}] (outer rings; a GPX track walked). */
export function importShapes(text, fileName = '') {
  const ring = (coords) => coords.map(([lon, lat]) => ({ lat, lon }));
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const json = JSON.parse(trimmed);
    const features = json.type === 'FeatureCollection' ? json.features : json.type === 'Feature' ? [json] : [{ type: 'Feature', properties: {}, geometry: json }];
    return features.flatMap((f) => {
      const g = f.geometry || {};
      const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
      const name = (f.properties && f.properties.name) || '';
      return polygons.map((p) => ({ name, ring: ring(p[0]).slice(0, -1) }));
    });
  }
  const xml = new DOMParser().parseFromString(trimmed, 'application/xml');
  if (xml.querySelector('parsererror')) throw new Error(t('{file} is not GeoJSON, KML or GPX.', { file: fileName || t('The file') }));
  const placemarks = [...xml.getElementsByTagName('Placemark')];
  if (placemarks.length) {
    return placemarks.flatMap((pm) => {
      const name = (pm.getElementsByTagName('name')[0] || {}).textContent || '';
      return [...pm.getElementsByTagName('outerBoundaryIs')].map((outer) => {
        const coords = (outer.getElementsByTagName('coordinates')[0] || {}).textContent || '';
        return { name, ring: ring(coords.trim().split(/\s+/).map((c) => c.split(',').map(Number))).slice(0, -1) };
      });
    });
  }
  const points = [...xml.getElementsByTagName('trkpt'), ...xml.getElementsByTagName('rtept')].map((p) => ({ lat: Number(p.getAttribute('lat')), lon: Number(p.getAttribute('lon')) }));
  if (points.length >= 3) {
    const name = (xml.getElementsByTagName('name')[0] || {}).textContent || '';
    return [{ name, ring: simplify(points, 2) }];
  }
  return [];
}
