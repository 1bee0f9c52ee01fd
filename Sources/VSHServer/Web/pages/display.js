// The screen at a stop with a rotating code (`/display/{stop}`): its QR code and its six digits, large,
// changing every 30 s. An organiser opens it signed in, or puts the link made for one screen
// (`?token=`) on the venue's display. The page is given the codes of the next four hours at once
// and runs on its own clock from then on: a lost connection does not stop it.
import { api, ApiError } from '../api.js';
import { h, fill, formatTime } from '../dom.js';
import { t } from '../i18n.js';
import { main, cleanups, needSession, siteTitle } from '../shell.js';

/** The modules of a QR code (`{size, bits}`: rows, dark 1, most significant bit first, Base64) as SVG. */
export function qrSVG(qr, label) {
  const bytes = Uint8Array.from(atob(qr.bits), (c) => c.charCodeAt(0));
  const side = qr.size + 8;
  let path = '';
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) {
      const i = y * qr.size + x;
      if (bytes[i >> 3] & (0x80 >> (i & 7))) path += `M${x + 4} ${y + 4}h1v1h-1z`;
    }
  }
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${side} ${side}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const back = document.createElementNS(ns, 'rect');
  back.setAttribute('width', side);
  back.setAttribute('height', side);
  back.setAttribute('fill', '#fff');
  const dark = document.createElementNS(ns, 'path');
  dark.setAttribute('d', path);
  dark.setAttribute('fill', '#000');
  svg.append(back, dark);
  return svg;
}

export async function displayPage(id) {
  const token = new URLSearchParams(location.search).get('token');
  if (!token) needSession();
  document.body.classList.add('projector', 'display');
  cleanups.push(() => document.body.classList.remove('projector', 'display'));
  const path = `/v1/stops/${encodeURIComponent(id)}/display${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  let data = await api(path, { auth: !token });
  // The server's clock less this screen's: the codes follow the server's time, whatever the screen's says.
  let offset = Date.parse(data.now) - Date.now();
  const qrBox = h('div', { class: 'display-qr' });
  const digits = h('p', { class: 'display-code', 'aria-live': 'polite' });
  const bar = h('progress', { class: 'display-left', max: data.step_s, value: 0, 'aria-label': t('Time left for this code') });
  const state = h('p', { class: 'display-state', role: 'status' });
  const link = data.screen_url ? h('p', { class: 'display-link' }, t('Link for this screen (keep it for the venue’s display):'), ' ', h('a', { href: data.screen_url }, t('open it here'))) : null;
  fill(main, h('header', { class: 'projector-head' }, h('p', { class: 'event' }, siteTitle), h('h1', {}, data.name), h('p', { class: 'display-hunt' }, data.hunt_name)),
    h('div', { class: 'display-body' }, qrBox, h('div', { class: 'display-side' },
      h('p', { class: 'display-how' }, t('Scan with your phone’s camera to check in here, or type the code on the stop’s page:')),
      digits, bar, state)), link);
  let shown = null;
  const draw = () => {
    const now = (Date.now() + offset) / 1000;
    const at = Math.floor(now / data.step_s) * data.step_s;
    const current = data.codes.find((c) => c.at === at);
    if (!current) {
      fill(qrBox);
      digits.textContent = '';
      state.textContent = t('This screen has no codes for now: connect it to the network and reload the page.');
      return;
    }
    if (shown !== at) {
      shown = at;
      fill(qrBox, qrSVG(current.qr, t('QR code to check in at {stop}', { stop: data.name })));
      digits.textContent = `${current.code.slice(0, 3)} ${current.code.slice(3)}`;
    }
    bar.value = data.step_s - (now - at);
  };
  draw();
  const timer = setInterval(draw, 1000);
  cleanups.push(() => clearInterval(timer));
  // Fresh codes every ten minutes while the network answers; without it the screen goes on with the
  // ones it has (four hours from the last answer) and says until when.
  const refresh = async () => {
    try {
      data = await api(path, { auth: !token });
      offset = Date.parse(data.now) - Date.now();
      state.textContent = '';
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        state.textContent = t('This screen’s link no longer works: the stop’s code was changed or removed.');
        data.codes = [];
      } else {
        const last = data.codes[data.codes.length - 1];
        state.textContent = t('Offline: the codes on this screen last until {time}.', { time: formatTime(new Date((last.at + data.step_s) * 1000).toISOString(), data.timezone) });
      }
    }
    draw();
  };
  const again = setInterval(refresh, 10 * 60 * 1000);
  cleanups.push(() => clearInterval(again));
}
