// The /v1 API as the pages use it: JSON in and out, the session's bearer token, problems as errors.

const KEY = 'vsh.session';

/** The signed-in session ({token, player: {id, username}, expires_at}) or null. */
export function session() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) || 'null');
    if (s && s.token && s.player && (!s.expires_at || Date.parse(s.expires_at) > Date.now())) return s;
  } catch (_) { /* a damaged entry is no session */ }
  return null;
}

export function setSession(s) { localStorage.setItem(KEY, JSON.stringify(s)); }
export function clearSession() { localStorage.removeItem(KEY); }

/** An answer that was not 2xx: its status and the problem's words. */
export class ApiError extends Error {
  constructor(status, title, detail, errors = null) {
    super(detail || title || `HTTP ${status}`);
    this.status = status;
    this.title = title;
    this.detail = detail;
    // A hunt file's problems, each {pointer, detail} (the organisers' routes).
    this.errors = errors;
  }
}

/** The error of a fetch that never reached the server (offline, dead zone). */
export class OfflineError extends Error {}

export function authHeaders() {
  const s = session();
  return s ? { Authorization: `Bearer ${s.token}` } : {};
}

/**
 * Calls the API. `json` becomes the body; `auth` adds the session's token.
 * Returns the parsed JSON (or null for 204); throws ApiError or OfflineError.
 */
export async function api(path, { method = 'GET', json, auth = false, body, headers = {} } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers } };
  if (auth) Object.assign(init.headers, authHeaders());
  if (json !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(json);
  } else if (body !== undefined) {
    init.body = body;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new OfflineError('no connection');
  }
  return parse(response);
}

async function parse(response) {
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
  if (!response.ok) {
    if (response.status === 401 && session()) clearSession();
    throw new ApiError(response.status, data && data.title, data && data.detail, data && Array.isArray(data.errors) ? data.errors : null);
  }
  return data;
}

/** A picture the API serves only to its owner, as an object URL for an <img>. */
export async function privatePicture(path) {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) throw new ApiError(response.status, 'picture', '');
  return URL.createObjectURL(await response.blob());
}

/**
 * Sends a check-in (multipart) with upload progress. `item` holds photo, lat, lon, accuracy, fixTime,
 * hunt and the idempotency key. Resolves to {status, body}; rejects with OfflineError when the
 * request never got an answer.
 */
export function sendCheckIn(item, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    if (item.photo) form.append('photo', item.photo, item.photoName || 'photo.jpg');
    if (item.lat !== undefined && item.lat !== null) {
      form.append('lat', String(item.lat));
      form.append('lon', String(item.lon));
      if (item.accuracy !== undefined && item.accuracy !== null) form.append('accuracy_m', String(item.accuracy));
      form.append('fix_time', item.fixTime);
    }
    if (item.hunt) form.append('hunt', item.hunt);
    // A stop's code (printed there, or on its screen) goes with the stop it was typed for.
    if (item.code) { form.append('code', item.code); form.append('stop', item.stop); }
    // An answer is judged for the stop it was given at.
    if (item.answer) { form.append('answer', item.answer); if (!item.code) form.append('stop', item.stop); }
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/checkins');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Idempotency-Key', item.key);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onerror = () => reject(new OfflineError('no connection'));
    xhr.ontimeout = () => reject(new OfflineError('timed out'));
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (_) { body = null; }
      resolve({ status: xhr.status, body });
    };
    xhr.timeout = 120000;
    xhr.send(form);
  });
}

/** A key no other check-in of this phone will use (128 random bits). */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return 'web-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
