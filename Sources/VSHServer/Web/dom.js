// Building the page: elements from values, never from HTML text, so player-supplied text is
// always shown as text.

const SVG = 'http://www.w3.org/2000/svg';

/** An element: h('p', {class: 'x', onclick: f}, 'text', child). Strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

import { locale, t } from './i18n.js';

export { locale };

/** A number as the player's language writes it (1,250 or 1.250). */
export const number = (n) => Number(n).toLocaleString(locale());

/** "3 stops": the number and the noun (English, translated as a word). */
export const plural = (n, one, many = one + 's') => `${number(n)} ${t(n === 1 ? one : many)}`;

export function formatDistance(metres) {
  if (metres === null || metres === undefined) return '';
  if (metres < 1) return t('you are here');
  if (metres < 1000) return t('{m} m away', { m: number(Math.round(metres / 10) * 10 || Math.round(metres)) });
  return t('{km} km away', { km: (metres / 1000).toLocaleString(locale(), { maximumFractionDigits: metres < 10000 ? 1 : 0, minimumFractionDigits: metres < 10000 ? 1 : 0 }) });
}

export function formatTime(iso, timeZone) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  try {
    return d.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short', timeZone });
  } catch (_) {
    return d.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  }
}

// A moment of today as a clock time ("1:54:01 PM"), of another day with the date, in `timeZone`
// (the hunt's) when given.
export function formatClock(iso, timeZone, now = new Date()) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const zoned = (options) => {
    try { return d.toLocaleString(locale(), { ...options, timeZone }); } catch (_) { return d.toLocaleString(locale(), options); }
  };
  const day = (x) => { try { return x.toLocaleDateString('en-CA', { timeZone }); } catch (_) { return x.toLocaleDateString('en-CA'); } };
  const time = { hour: 'numeric', minute: '2-digit', second: '2-digit' };
  return day(d) === day(now) ? zoned(time) : zoned({ month: 'short', day: 'numeric', ...time });
}

// A hunt's opening or closing time in its own time zone, with the weekday ("Sat, Nov 28, 10:00 AM").
export function formatOpening(iso, timeZone) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const options = { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
  try {
    return d.toLocaleString(locale(), { ...options, timeZone });
  } catch (_) {
    return d.toLocaleString(locale(), options);
  }
}

// How long until `iso`: "2 days 3 h", "3 h 20 min", "12 min", "less than a minute".
export function countdown(iso, now = Date.now()) {
  const minutes = Math.max(0, Math.floor((new Date(iso).getTime() - now) / 60000));
  if (minutes < 1) return t('less than a minute');
  const days = Math.floor(minutes / 1440), hours = Math.floor((minutes % 1440) / 60), rest = minutes % 60;
  if (days) return `${plural(days, 'day')}${hours ? ` ${hours} h` : ''}`;
  if (hours) return `${hours} h${rest ? ` ${rest} min` : ''}`;
  return `${rest} min`;
}

export function initials(name) {
  return Array.from(name.trim().split(/\s+/).slice(0, 2).map((w) => Array.from(w)[0] || '').join('')).join('').toUpperCase() || '?';
}

// Geometry on the scale of a city: a local flat projection in metres is accurate to well under
// a metre over a few kilometres, which is all a distance shown to a walker needs.

export function rings(geometry) {
  if (!geometry) return [];
  if (geometry.type === 'Polygon') return geometry.coordinates;
  if (geometry.type === 'MultiPolygon') return geometry.coordinates.flat();
  return [];
}

function polygons(geometry) {
  if (!geometry) return [];
  if (geometry.type === 'Polygon') return [geometry.coordinates];
  if (geometry.type === 'MultiPolygon') return geometry.coordinates;
  return [];
}

function inside(point, ring) {
  let hit = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if ((yi > point[1]) !== (yj > point[1]) && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

/** Metres from a position {lat, lon} to a stop's geometry: 0 inside it. */
export function distanceTo(position, geometry) {
  const metresPerDegree = 111320;
  const cos = Math.cos((position.lat * Math.PI) / 180);
  const project = ([lon, lat]) => [(lon - position.lon) * metresPerDegree * cos, (lat - position.lat) * metresPerDegree];
  let best = Infinity;
  for (const polygon of polygons(geometry)) {
    const projected = polygon.map((ring) => ring.map(project));
    if (projected.length && inside([0, 0], projected[0]) && !projected.slice(1).some((hole) => inside([0, 0], hole))) return 0;
    for (const ring of projected) {
      for (let i = 1; i < ring.length; i++) best = Math.min(best, segmentDistance(ring[i - 1], ring[i]));
    }
  }
  return best === Infinity ? null : best;
}

function segmentDistance([ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/** The centre of a geometry's outer rings' vertices ({lat, lon}). */
export function centre(geometry) {
  // The outer rings' corners, each once: a ring's closing point repeats its first, and counting it
  // twice pulled a rectangle's marker towards that corner.
  const points = polygons(geometry).flatMap((p) => {
    const ring = p[0] || [];
    const last = ring[ring.length - 1], first = ring[0];
    return ring.length > 1 && last[0] === first[0] && last[1] === first[1] ? ring.slice(0, -1) : ring;
  });
  if (!points.length) return null;
  const lon = points.reduce((s, p) => s + p[0], 0) / points.length;
  const lat = points.reduce((s, p) => s + p[1], 0) / points.length;
  return { lat, lon };
}
