// The service worker: the app opens without a connection (a casino floor is a dead zone), so a
// player can still reach a stop's page and take a check-in that waits in the outbox. Network
// first, always: online, every answer is the server's; offline, the last copy of the app's files,
// of its shell and of the hunts (public data) is used. Nothing private is kept here (no profile,
// no check-in, no token), and nothing but GET requests is touched.
const CACHE = 'vsh-app-13';
const SHELL = ['/', '/app/app.js', '/app/shell.js', '/app/pages/feed.js', '/app/pages/hunt.js', '/app/pages/stop.js',
  '/app/pages/leaderboard.js', '/app/pages/profile.js', '/app/pages/accounts.js', '/app/pages/review.js', '/app/pages/organise.js', '/app/pages/join.js', '/app/pages/projector.js', '/app/pages/team.js', '/app/pages/live.js', '/app/pages/display.js', '/app/api.js', '/app/dom.js', '/app/map.js', '/app/outbox.js', '/app/position.js', '/app/verdict.js', '/app/i18n.js', '/app/i18n/es.json',
  '/app/style.css', '/app/icon.svg', '/app/config.json', '/app/manifest.webmanifest'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Every page of the app is the same shell (a share page is not: it is the server's own).
  const page = request.mode === 'navigate' && !url.pathname.startsWith('/share/');
  const kept = page || url.pathname.startsWith('/app/') || url.pathname === '/v1/hunts' || url.pathname === '/v1/basemap'
    || /^\/v1\/hunts\/[a-z0-9-]+$/.test(url.pathname);
  if (!kept) return;
  const key = page ? '/' : url.pathname;
  event.respondWith(fetch(request).then((answer) => {
    if (answer.ok) {
      const copy = answer.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
    }
    return answer;
  }).catch(() => caches.match(key).then((hit) => hit || Response.error())));
});
