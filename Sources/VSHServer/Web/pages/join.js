// Joining a private hunt (`/join/{code}`, the address of a printed or projected QR code): signed in,
// the player joins at once and lands on the hunt; otherwise they sign up or in first and come back.
import { api, session, ApiError } from '../api.js';
import { h, fill } from '../dom.js';
import { t } from '../i18n.js';
import { main, hunts, go, say } from '../shell.js';

/** A form to type a code: it opens `/join/{code}`. */
export function codeForm() {
  const input = h('input', { id: 'join-code', name: 'code', required: true, maxlength: 40, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false' });
  return h('form', { class: 'join-form', onsubmit: (event) => {
    event.preventDefault();
    const code = input.value.replace(/[\s-]+/g, '').toUpperCase();
    if (code) go(`/join/${encodeURIComponent(code)}`);
  } },
  h('label', { for: 'join-code' }, t('Have a code for a private hunt?')),
  h('div', { class: 'inline' }, input, h('button', { type: 'submit' }, t('Join'))));
}

export async function joinPage(code) {
  const back = `/join/${encodeURIComponent(code)}`;
  if (!session()) {
    fill(main, h('h1', {}, t('Join a private hunt')),
      h('p', {}, t('You have the code {code}. Create an account or sign in, and you are in.', { code })),
      h('p', { class: 'stop-actions' },
        h('a', { class: 'button', href: `/signup?next=${encodeURIComponent(back)}` }, t('Create an account')),
        h('a', { class: 'button secondary', href: `/signin?next=${encodeURIComponent(back)}` }, t('Sign in'))));
    return;
  }
  try {
    const answer = await api('/v1/joins', { method: 'POST', json: { code }, auth: true });
    hunts.feed = null;
    hunts.files.clear();
    if (answer.team) {
      say(t('You are on team {team} for {hunt}. Good luck!', { team: answer.team.name, hunt: answer.hunt.name }), 'good');
    } else {
      say(t('You joined {hunt}. Good luck!', { hunt: answer.hunt.name }), 'good');
    }
    go(`/hunts/${encodeURIComponent(answer.hunt.id)}`, { replace: true });
  } catch (error) {
    if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 409 && error.status !== 429)) throw error;
    fill(main, h('h1', {}, t('Join a private hunt')),
      h('p', { class: 'error', role: 'alert' }, error.status === 404
        ? t('No hunt or team has the code {code}. Check it and type it again.', { code })
        : error.message),
      codeForm());
  }
}
