// The player's position on a stop page: one watch, started when the page opens (if the player has
// shared their position before) or at their first tap, kept while the page is open. A check-in uses
// the watched fix at once when it is fresh, and otherwise waits for the next one: it never asks the
// browser a second time while a watch is running (that second request used to time out after 20 s
// with a fresh fix in hand).

/** How old a watched fix may be and still go with a check-in (the server allows 2 minutes). */
export const FRESH_MS = 60000;

/**
 * A position tracker: `start()`, `fix` (the latest {lat, lon, accuracy, time}), `problem`
 * ('denied', 'unavailable', 'timeout', 'unsupported' or null), `onChange(f)`, `fresh()`,
 * `next(ms)` (a fresh fix, waiting up to ms; null when none came) and `stop()`.
 */
export function tracker(geolocation = navigator.geolocation) {
  const listeners = new Set();
  let watch = null;
  const t = {
    fix: null,
    problem: null,
    started: false,
    onChange(f) { listeners.add(f); return () => listeners.delete(f); },
    start() {
      if (t.started) return;
      t.started = true;
      t.problem = null;
      if (!geolocation) { t.problem = 'unsupported'; notify(); return; }
      watch = geolocation.watchPosition(
        (p) => {
          t.fix = { lat: p.coords.latitude, lon: p.coords.longitude, accuracy: p.coords.accuracy, time: p.timestamp || Date.now() };
          t.problem = null;
          notify();
        },
        (e) => {
          t.problem = e && e.code === 1 ? 'denied' : e && e.code === 3 ? 'timeout' : 'unavailable';
          notify();
        },
        { enableHighAccuracy: true, maximumAge: 15000, timeout: 30000 });
      notify();
    },
    /** Starts again after a problem (the player turned location on and taps "Try again"). */
    restart() {
      t.stop();
      t.start();
    },
    stop() {
      if (watch !== null && geolocation) geolocation.clearWatch(watch);
      watch = null;
      t.started = false;
    },
    fresh() {
      return t.fix && Date.now() - t.fix.time <= FRESH_MS ? t.fix : null;
    },
    next(ms) {
      t.start();
      if (t.fresh()) return Promise.resolve(t.fresh());
      return new Promise((resolve) => {
        let off = null;
        const timer = setTimeout(() => { off(); resolve(null); }, ms);
        off = t.onChange(() => {
          if (t.fresh() || (t.problem && t.problem !== 'timeout')) {
            clearTimeout(timer);
            off();
            resolve(t.fresh());
          }
        });
      });
    },
  };
  function notify() {
    for (const f of [...listeners]) f(t);
  }
  return t;
}

/** Whether the player has already let this site read their position (no prompt would show). */
export async function shared() {
  try {
    return (await navigator.permissions.query({ name: 'geolocation' })).state === 'granted';
  } catch (_) {
    return false;
  }
}

/** Whether the site may not ask at all (the player or the browser said no). */
export async function refused() {
  try {
    return (await navigator.permissions.query({ name: 'geolocation' })).state === 'denied';
  } catch (_) {
    return false;
  }
}

/** Which browser the player uses, for the steps that turn location on. */
export function browserKind(ua = navigator.userAgent) {
  if (/iPhone|iPad|iPod/.test(ua)) return 'ios';
  if (/SamsungBrowser/.test(ua)) return 'samsung';
  if (/Firefox|FxiOS/.test(ua)) return 'firefox';
  if (/Android/.test(ua)) return 'android';
  if (/Edg\//.test(ua)) return 'edge';
  if (/Safari/.test(ua) && !/Chrome|Chromium/.test(ua)) return 'safari';
  return 'chrome';
}

/**
 * Whether a JPEG carries a GPS position in its EXIF (then the photo alone can place the player).
 * Reads the first 128 KiB only: the EXIF block is at the start of the file.
 */
export async function photoHasGPS(file) {
  try {
    const bytes = new DataView(await file.slice(0, 131072).arrayBuffer());
    if (bytes.byteLength < 4 || bytes.getUint16(0) !== 0xFFD8) return false;
    let at = 2;
    while (at + 4 <= bytes.byteLength) {
      if (bytes.getUint8(at) !== 0xFF) return false;
      const marker = bytes.getUint8(at + 1);
      const length = bytes.getUint16(at + 2);
      if (marker === 0xDA || marker === 0xD9) return false;
      if (marker === 0xE1 && at + 10 <= bytes.byteLength && bytes.getUint32(at + 4) === 0x45786966) {
        return exifHasGPS(new DataView(bytes.buffer, at + 10, Math.min(length - 8, bytes.byteLength - at - 10)));
      }
      at += 2 + length;
    }
  } catch (_) { /* not a JPEG we can read: no position */ }
  return false;
}

function exifHasGPS(tiff) {
  if (tiff.byteLength < 8) return false;
  const little = tiff.getUint16(0) === 0x4949;
  const u16 = (o) => tiff.getUint16(o, little);
  const u32 = (o) => tiff.getUint32(o, little);
  const ifd0 = u32(4);
  if (ifd0 + 2 > tiff.byteLength) return false;
  const count = u16(ifd0);
  for (let i = 0; i < count && ifd0 + 2 + 12 * (i + 1) <= tiff.byteLength; i++) {
    const entry = ifd0 + 2 + 12 * i;
    if (u16(entry) !== 0x8825) continue;
    const gps = u32(entry + 8);
    if (gps + 2 > tiff.byteLength) return false;
    const tags = new Set();
    for (let j = 0; j < u16(gps) && gps + 2 + 12 * (j + 1) <= tiff.byteLength; j++) tags.add(u16(gps + 2 + 12 * j));
    return tags.has(2) && tags.has(4); // GPSLatitude and GPSLongitude
  }
  return false;
}

/** How often a page sends the player's position to a hunt that shares it: every 30 s at most. */
export const REPORT_MS = 30000;

/**
 * Sends the tracker's fixes for the organisers' map of a hunt that shares positions
 * (`hunt.share_positions`), while it is open: the first fix at once, then one every REPORT_MS
 * at most, through `send(fix)` (a promise). Stops for good when the server says no (the hunt
 * closed or stopped sharing). Returns the function that stops it.
 */
export function reportTo(hunt, state, where, send) {
  if (!hunt.share_positions || (state && state !== 'open')) return () => {};
  let last = 0;
  let busy = false;
  let refused = false;
  return where.onChange((w) => {
    if (!w.fix || busy || refused || Date.now() - last < REPORT_MS) return;
    busy = true;
    last = Date.now();
    send(w.fix)
      .catch((error) => { if (error && (error.status === 409 || error.status === 403 || error.status === 404)) refused = true; })
      .finally(() => { busy = false; });
  });
}
