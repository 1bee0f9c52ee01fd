// Accounts: sign up, sign in, a new password from a reset link.
import { api, session, setSession, clearSession, ApiError, OfflineError, privatePicture, sendCheckIn, newKey } from '../api.js';
import { h, fill, plural, number, formatDistance, formatTime, formatOpening, countdown, initials, distanceTo } from '../dom.js';
import * as position from '../position.js';
import { t } from '../i18n.js';
import { verdictView } from '../verdict.js';
import { drawMap } from '../map.js';
import * as outbox from '../outbox.js';
import { main, cleanups, hunts, go, redraw, say, needSession, feed, huntFile, findStop, visitedStops, local, localStops, difficulty, progress, schedule, languageSwitch, showConnection, flushOutbox } from '../shell.js';

function field(id, label, attrs) {
  const input = h('input', { id, name: id, ...attrs, 'aria-describedby': `${id}-error` });
  return { input, error: h('p', { id: `${id}-error`, class: 'field-error' }), row: null };
}

function accountForm({ title, fields, submit, action, footer }) {
  const formError = h('p', { class: 'field-error form-error', role: 'alert' });
  const made = fields.map(([id, label, attrs]) => ({ id, label, ...field(id, label, attrs) }));
  const button = h('button', { type: 'submit' }, submit);
  const form = h('form', { class: 'account', novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    formError.textContent = '';
    for (const f of made) { f.error.textContent = ''; f.input.removeAttribute('aria-invalid'); }
    const missing = made.find((f) => f.input.required && !f.input.value.trim());
    if (missing) return mark(missing, t('Enter your {field}.', { field: missing.label.toLowerCase() }));
    const values = Object.fromEntries(made.map((f) => [f.id, f.input.value]));
    button.disabled = true;
    try {
      await action(values);
    } catch (error) {
      if (error instanceof OfflineError) formError.textContent = t('No connection: try again when you are online.');
      else if (error instanceof ApiError) {
        const target = error.status === 409 ? made.find((f) => f.id === 'username')
          : made.find((f) => (error.detail || '').toLowerCase().includes(f.id === 'username' ? 'name' : f.id));
        if (target && error.status !== 401) mark(target, error.message);
        else formError.textContent = error.status === 401 ? t('That name and password do not match.') : error.message;
      } else throw error;
    } finally {
      button.disabled = false;
    }
  } },
  made.map((f) => h('div', { class: 'field' }, h('label', { for: f.id }, f.label), f.input, f.error)),
  formError, button);
  function mark(f, text) {
    f.error.textContent = text;
    f.input.setAttribute('aria-invalid', 'true');
    f.input.focus();
  }
  fill(main, h('h1', {}, title), form, footer);
}

function afterSignIn(answer) {
  setSession({ token: answer.token, player: answer.player, expires_at: answer.expires_at || null });
  hunts.feed = null;
  const next = new URLSearchParams(location.search).get('next');
  go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
  flushOutbox();
}

export async function signUpPage() {
  accountForm({
    title: t('Create an account'), submit: t('Create account'),
    fields: [
      ['username', t('Name'), { autocomplete: 'username', required: true, maxlength: 64, autocapitalize: 'words', spellcheck: 'false' }],
      ['email', t('Email'), { type: 'email', autocomplete: 'email', required: true, inputmode: 'email' }],
      ['password', t('Password'), { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }],
    ],
    action: async (v) => afterSignIn(await api('/v1/accounts', { method: 'POST', json: { username: v.username.trim(), email: v.email.trim(), password: v.password } })),
    footer: h('p', {}, `${t('Already playing?')} `, h('a', { href: `/signin${location.search}` }, t('Sign in'))),
  });
}

export async function signInPage() {
  const resetEmail = h('input', { type: 'email', id: 'reset-email', autocomplete: 'email', 'aria-describedby': 'reset-status' });
  const resetStatus = h('p', { id: 'reset-status', role: 'status' });
  const reset = h('details', { class: 'reset' }, h('summary', {}, t('Forgot your password?')),
    h('form', { novalidate: true, onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/v1/password-resets', { method: 'POST', json: { email: resetEmail.value.trim() } });
        resetStatus.textContent = t('If a player has this address, a link to choose a new password is on its way.');
      } catch (error) {
        resetStatus.textContent = error instanceof ApiError && error.status === 503 ? t('This server sends no e-mail: ask the organiser.') : error.message;
      }
    } }, h('label', { for: 'reset-email' }, t('Email')), resetEmail, h('button', { type: 'submit', class: 'secondary' }, t('Send a link')), resetStatus));
  accountForm({
    title: t('Sign in'), submit: t('Sign in'),
    fields: [
      ['username', t('Name or e-mail address'), { autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' }],
      ['password', t('Password'), { type: 'password', autocomplete: 'current-password', required: true }],
    ],
    action: async (v) => afterSignIn(await api('/v1/sessions', { method: 'POST', json: { username: v.username.trim(), password: v.password } })),
    footer: [h('p', {}, `${t('New here?')} `, h('a', { href: `/signup${location.search}` }, t('Create an account'))), reset, languageSwitch()],
  });
}

// The page the reset e-mail links to: the token from the link, a new password, then sign in.
// The token leaves the address bar at once (it would stay in the history and in shared screens).
let resetToken = null;
export async function resetPasswordPage() {
  const fromLink = new URLSearchParams(location.search).get('token');
  if (fromLink) {
    resetToken = fromLink;
    history.replaceState(null, '', '/reset-password');
  }
  if (!resetToken) {
    fill(main, h('h1', {}, t('Choose a new password')),
      h('p', { class: 'note' }, `${t('Open the link from the e-mail we sent you.')} `, h('a', { href: '/signin' }, t('Ask for a new one')), ` ${t('if it is lost.')}`));
    return;
  }
  accountForm({
    title: t('Choose a new password'), submit: t('Save the new password'),
    fields: [['password', t('New password'), { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }]],
    action: async (v) => {
      try {
        await api(`/v1/password-resets/${encodeURIComponent(resetToken)}`, { method: 'POST', json: { password: v.password } });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          resetToken = null;
          throw new ApiError(404, t('Not found'), t('This link was used already or has expired: ask for a new one from the sign-in page.'));
        }
        throw error;
      }
      resetToken = null;
      clearSession();
      fill(main, h('h1', {}, t('Password changed')),
        h('p', { role: 'status' }, t('Your new password is set, and every device you were signed in on is signed out.')),
        h('p', {}, h('a', { href: '/signin', class: 'button' }, t('Sign in'))));
    },
    footer: h('p', { class: 'note' }, t('At least 8 characters. The link works once.')),
  });
}
