// Stops on a map. With the operator's street tiles (`vsh serve --tiles`), Leaflet (Debian's
// libjs-leaflet, served by vsh) draws them over the streets; without, vsh draws its own SVG map:
// the same polygons, numbered markers, the player's position and a scale bar.
import { h, rings, centre } from './dom.js';
import { t } from './i18n.js';

let configuration = null;

export async function config() {
  if (!configuration) {
    try {
      configuration = await (await fetch('/app/config.json')).json();
    } catch (_) {
      configuration = { tiles: null, attribution: null };
    }
  }
  return configuration;
}

let basemapAnswer = null;

/**
 * The organiser's base layer (`GET /v1/basemap`, from `vsh-master basemap import`), read once:
 * {attribution, features: [{kind, name, area, coords, box}]}, or null when there is none.
 */
export function basemap() {
  if (!basemapAnswer) {
    basemapAnswer = fetch('/v1/basemap').then((answer) => (answer.ok ? answer.json() : null)).then((json) => {
      if (!json || !Array.isArray(json.features)) return null;
      const features = [];
      for (const f of json.features) {
        const g = f.geometry || {};
        const coords = g.type === 'Polygon' ? (g.coordinates || [])[0] : g.type === 'LineString' ? g.coordinates : null;
        if (!Array.isArray(coords) || coords.length < 2) continue;
        const lons = coords.map((c) => c[0]), lats = coords.map((c) => c[1]);
        features.push({
          kind: (f.properties && f.properties.kind) || 'street', name: f.properties && f.properties.name, area: g.type === 'Polygon', coords,
          box: [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)],
        });
      }
      // Areas under lines; footpaths under streets.
      const order = { water: 0, building: 1, footway: 2, street: 3 };
      features.sort((a, b) => (order[a.kind] ?? 9) - (order[b.kind] ?? 9));
      return { attribution: json.attribution || null, features };
    }).catch(() => null);
  }
  return basemapAnswer;
}

/**
 * The base layer inside an extent ({minLat, maxLat, minLon, maxLon}) as an SVG group, projected by
 * `x` and `y`; `u` is one CSS pixel in viewBox units. With the data's attribution at the top left.
 */
export function basemapLayer(base, extent, x, y, u, W, H) {
  const layer = h('svg:g', { class: 'basemap', 'aria-hidden': 'true' });
  if (!base) return layer;
  const widths = { street: 6, footway: 2.5, water: 3, building: 1 };
  const streets = [];
  for (const f of base.features) {
    const [w, s, e, n] = f.box;
    if (e < extent.minLon || w > extent.maxLon || n < extent.minLat || s > extent.maxLat) continue;
    const d = 'M' + f.coords.map(([lon, lat]) => `${x(lon).toFixed(1)},${y(lat).toFixed(1)}`).join('L') + (f.area ? 'Z' : '');
    if (f.kind === 'street' && !f.area) { streets.push(d); continue; }
    layer.append(h('svg:path', { d, class: `bm-${f.kind}${f.area ? ' area' : ''}`, 'stroke-width': (widths[f.kind] || 2) * u }));
  }
  // Streets white with a grey edge: all the edges first, so that junctions join.
  for (const d of streets) layer.append(h('svg:path', { d, class: 'bm-street-edge', 'stroke-width': 8 * u }));
  for (const d of streets) layer.append(h('svg:path', { d, class: 'bm-street', 'stroke-width': 6 * u }));
  if (base.attribution && layer.childNodes.length) {
    layer.append(h('svg:text', { class: 'attribution', x: 6 * u, y: 14 * u, 'font-size': 9 * u }, base.attribution));
  }
  return layer;
}

/**
 * Draws `features` (GeoJSON stops) into `container`.
 * options: visited (Set of ids), position ({lat, lon, accuracy}), label (accessible name),
 * link (true: each stop links to its page), numbers (Map id → number shown on its marker).
 * Returns {setPosition(position), setPlayers(players)}: players [{lat, lon, label, title}] are
 * the other players' last positions an organiser sees (a dot with the label, the title on hover).
 */
export async function drawMap(container, features, options = {}) {
  const { tiles, attribution } = await config();
  if (tiles) {
    try {
      return await leafletMap(container, features, options, tiles, attribution);
    } catch (_) {
      container.replaceChildren();
    }
  }
  return svgMap(container, features, { ...options, basemap: await basemap() });
}

function svgMap(container, features, options) {
  const visited = options.visited || new Set();
  const points = features.flatMap((f) => rings(f.geometry).flat());
  if (!points.length) return { setPosition() {}, setPlayers() {} };
  let minLon = Math.min(...points.map((p) => p[0]));
  let maxLon = Math.max(...points.map((p) => p[0]));
  let minLat = Math.min(...points.map((p) => p[1]));
  let maxLat = Math.max(...points.map((p) => p[1]));
  // Room around the stops: a fifth of the extent, at least about 60 m.
  const padLat = Math.max((maxLat - minLat) * 0.2, 0.0006);
  const padLon = Math.max((maxLon - minLon) * 0.2, 0.0006 / Math.cos((minLat * Math.PI) / 180));
  minLat -= padLat; maxLat += padLat; minLon -= padLon; maxLon += padLon;
  const cos = Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
  const widthM = (maxLon - minLon) * 111320 * cos;
  const heightM = (maxLat - minLat) * 111320;
  const W = 1000;
  const H = Math.max(500, Math.min(1600, Math.round((W * heightM) / widthM)));
  const scale = Math.min(W / widthM, H / heightM);
  const offsetX = (W - widthM * scale) / 2;
  const offsetY = (H - heightM * scale) / 2;
  const x = (lon) => offsetX + (lon - minLon) * 111320 * cos * scale;
  const y = (lat) => H - offsetY - (lat - minLat) * 111320 * scale;
  const path = (geometry) => rings(geometry).map((ring) => 'M' + ring.map(([lon, lat]) => `${x(lon).toFixed(1)},${y(lat).toFixed(1)}`).join('L') + 'Z').join('');

  // One CSS pixel of a phone-wide map (about 360 px) in viewBox units: markers and labels keep
  // their size on the screen whatever the map's extent.
  const u = W / 360;
  const svg = h('svg:svg', {
    viewBox: `0 0 ${W} ${H}`, class: 'map', role: 'img',
    'aria-label': options.label || `Map of ${features.length} stops`,
  });
  svg.append(h('svg:rect', { x: 0, y: 0, width: W, height: H, class: 'ground' }));
  // A faint grid (50 m to 1 km, a dozen lines at most), so distances can be judged by eye.
  const gridM = [50, 100, 200, 500, 1000, 2000, 5000].find((m) => Math.max(widthM, heightM) / m <= 12) || 10000;
  const step = gridM * scale;
  for (let gx = offsetX % step; gx < W; gx += step) svg.append(h('svg:line', { x1: gx, y1: 0, x2: gx, y2: H, class: 'grid' }));
  for (let gy = H % step; gy < H; gy += step) svg.append(h('svg:line', { x1: 0, y1: gy, x2: W, y2: gy, class: 'grid' }));
  svg.append(basemapLayer(options.basemap, { minLat, maxLat, minLon, maxLon }, x, y, u, W, H));

  features.forEach((feature, index) => {
    const name = feature.properties.name;
    const done = visited.has(feature.id);
    const shape = h('svg:path', { d: path(feature.geometry), class: `stop${done ? ' visited' : ''}`, 'data-stop': feature.id },
      h('svg:title', {}, `${name}${done ? ` ${t('(visited)')}` : ''}`));
    const c = centre(feature.geometry);
    const number = options.numbers ? options.numbers.get(feature.id) : index + 1;
    const marker = h('svg:g', { class: `marker${done ? ' visited' : ''}`, transform: `translate(${x(c.lon).toFixed(1)},${y(c.lat).toFixed(1)})` },
      h('svg:circle', { r: 13 * u }),
      h('svg:text', { 'text-anchor': 'middle', dy: '0.35em', 'font-size': 14 * u }, done ? '✓' : String(number)));
    if (options.link) {
      svg.append(h('svg:a', { href: `/stops/${feature.id}`, 'aria-label': `${number}. ${name}${done ? `, ${t('visited')}` : ''}` }, shape, marker));
    } else {
      svg.append(shape, marker);
    }
  });

  // Scale bar and north.
  const barM = [20, 50, 100, 200, 500, 1000, 2000, 5000].filter((m) => m * scale <= W * 0.4).pop() || 10;
  const barPx = barM * scale;
  svg.append(h('svg:g', { class: 'scale', transform: `translate(${10 * u},${H - 12 * u})` },
    h('svg:rect', { x: -4 * u, y: -16 * u, width: barPx + 56 * u, height: 24 * u, rx: 4 * u, class: 'scale-back' }),
    h('svg:line', { x1: 0, y1: 0, x2: barPx, y2: 0 }),
    h('svg:text', { x: barPx + 6 * u, y: 4 * u, 'font-size': 12 * u }, barM >= 1000 ? `${barM / 1000} km` : `${barM} m`)));
  svg.append(h('svg:g', { class: 'north', transform: `translate(${W - 20 * u},${24 * u})` },
    h('svg:path', { d: `M0,${-14 * u}L${6 * u},${4 * u}L0,0L${-6 * u},${4 * u}Z` }),
    h('svg:text', { 'text-anchor': 'middle', y: 16 * u, 'font-size': 12 * u }, 'N')));

  const me = h('svg:g', { class: 'me', visibility: 'hidden' },
    h('svg:circle', { class: 'accuracy', r: 0 }), h('svg:circle', { class: 'dot', r: 7 * u }),
    h('svg:title', {}, t('You are here')));
  const others = h('svg:g', { class: 'players' });
  svg.append(others, me);
  container.replaceChildren(svg);

  const api = {
    setPosition(position) {
      if (!position) { me.setAttribute('visibility', 'hidden'); return; }
      const px = x(position.lon);
      const py = y(position.lat);
      const shown = px >= 0 && px <= W && py >= 0 && py <= H;
      me.setAttribute('visibility', shown ? 'visible' : 'hidden');
      me.setAttribute('transform', `translate(${px.toFixed(1)},${py.toFixed(1)})`);
      me.firstChild.setAttribute('r', String(Math.min(400, (position.accuracy || 0) * scale)));
    },
    setPlayers(players) {
      others.replaceChildren(...players.map((p) => {
        // A player outside the drawn area is pinned to its edge, so that nobody is off the map.
        const px = Math.max(8 * u, Math.min(W - 8 * u, x(p.lon)));
        const py = Math.max(8 * u, Math.min(H - 8 * u, y(p.lat)));
        return h('svg:g', { class: 'player', transform: `translate(${px.toFixed(1)},${py.toFixed(1)})` },
          h('svg:circle', { class: 'accuracy', r: String(Math.min(400, (p.accuracy || 0) * scale)) }),
          h('svg:circle', { class: 'dot', r: 6 * u }),
          h('svg:text', { x: 9 * u, dy: '0.35em', 'font-size': 12 * u }, p.label),
          h('svg:title', {}, p.title || p.label));
      }));
    },
  };
  api.setPosition(options.position);
  return api;
}

async function leaflet() {
  if (!document.querySelector('link[data-leaflet]')) {
    document.head.append(h('link', { rel: 'stylesheet', href: '/vendor/leaflet/leaflet.css', 'data-leaflet': true }));
  }
  return import('/vendor/leaflet/leaflet.esm.min.js');
}

/**
 * The organisers' drawing map over the operator's tiles (`vsh serve --tiles`), written on Leaflet's
 * own API: a tap is `handlers.tap({lat, lon})`; the corners of the shape being drawn are markers
 * that drag (`handlers.move(index, {lat, lon})` as they move, `handlers.moved(index)` when dropped).
 * Null without tiles (the editor draws vsh's SVG map). Returns {draw(scene, {keepView})}, scene:
 * {stops: [{id, name, number, bad, geometry}], drawing, walk: [{lat, lon}], circle: [[lon, lat]],
 * position: {lat, lon, accuracy}}; keepView leaves the map where the organiser moved it.
 */
export async function leafletEditor(container, handlers, label) {
  const { tiles, attribution } = await config();
  if (!tiles) return null;
  const L = await leaflet();
  const box = h('div', { class: 'leaflet-box editor', role: 'region', 'aria-label': label });
  container.replaceChildren(box);
  const map = L.map(box, { scrollWheelZoom: false, doubleClickZoom: false, maxZoom: 19 });
  L.tileLayer(tiles, { attribution: attribution || '', maxZoom: 19 }).addTo(map);
  const layers = L.featureGroup().addTo(map);
  map.on('click', (event) => handlers.tap({ lat: event.latlng.lat, lon: event.latlng.lng }));
  const latlng = (p) => [p.lat, p.lon];
  const orange = { color: '#e06a00', weight: 4, fillOpacity: 0.25, interactive: false, className: 'drawing' };
  let fitted = false;
  return {
    draw(scene, { keepView = false } = {}) {
      // The box may have been laid out (or resized) since the last drawing.
      map.invalidateSize({ pan: false });
      layers.clearLayers();
      for (const stop of scene.stops) {
        // Holes stay holes (Leaflet fills even-odd); a stop with a problem is red.
        const layer = L.geoJSON({ type: 'Feature', properties: {}, geometry: stop.geometry }, {
          interactive: false, style: { color: stop.bad ? '#c81e1e' : '#5a2bc0', weight: 3, fillOpacity: 0.25, className: `stop${stop.bad ? ' bad' : ''}` },
        });
        layer.bindTooltip(String(stop.number), { permanent: true, direction: 'center', className: 'stop-number' });
        layers.addLayer(layer);
      }
      if (scene.walk.length) layers.addLayer(L.polyline(scene.walk.map(latlng), { color: '#1d7a46', weight: 5, dashArray: '12 8', interactive: false, className: 'walk' }));
      if (scene.circle) layers.addLayer(L.polygon(scene.circle.map(([lon, lat]) => [lat, lon]), orange));
      if (scene.drawing.length) {
        const shape = (scene.drawing.length > 2 ? L.polygon : L.polyline)(scene.drawing.map(latlng), orange);
        layers.addLayer(shape);
        scene.drawing.forEach((p, index) => {
          const corner = L.marker(latlng(p), {
            draggable: true, keyboard: false, title: String(index + 1),
            icon: L.divIcon({ className: 'corner', iconSize: [24, 24] }),
          });
          corner.on('drag', () => {
            const at = corner.getLatLng();
            handlers.move(index, { lat: at.lat, lon: at.lng });
            shape.setLatLngs(scene.drawing.map(latlng));
          });
          corner.on('dragend', () => handlers.moved(index));
          layers.addLayer(corner);
          corner.getElement().dataset.corner = String(index);
        });
      }
      if (scene.position) {
        const at = latlng(scene.position);
        layers.addLayer(L.circle(at, { radius: scene.position.accuracy || 0, weight: 1, color: '#0b63ce', interactive: false }));
        layers.addLayer(L.circleMarker(at, { radius: 7, color: '#fff', fillColor: '#0b63ce', fillOpacity: 1, weight: 3, interactive: false }));
      }
      if (keepView && fitted) return;
      const bounds = layers.getBounds();
      if (bounds.isValid()) {
        map.fitBounds(bounds, { padding: [24, 24], maxZoom: 18 });
        fitted = true;
      } else if (!fitted) {
        map.setView([20, 0], 2);
      }
    },
  };
}

async function leafletMap(container, features, options, tiles, attribution) {
  const L = await leaflet();
  const visited = options.visited || new Set();
  const box = h('div', { class: 'leaflet-box', role: 'region', 'aria-label': options.label || t('Map of the stops') });
  container.replaceChildren(box);
  const map = L.map(box, { scrollWheelZoom: false });
  L.tileLayer(tiles, { attribution: attribution || '', maxZoom: 19 }).addTo(map);
  const group = L.featureGroup().addTo(map);
  features.forEach((feature, index) => {
    const done = visited.has(feature.id);
    const layer = L.geoJSON(feature, { style: { color: done ? '#1f7a3d' : '#6b2fd6', weight: 3, fillOpacity: 0.25 } });
    const label = document.createElement('a');
    label.href = `/stops/${feature.id}`;
    label.textContent = `${index + 1}. ${feature.properties.name}${done ? ' ✓' : ''}`;
    layer.bindTooltip(`${index + 1}`, { permanent: true, direction: 'center', className: 'stop-number' });
    layer.bindPopup(label);
    group.addLayer(layer);
  });
  map.fitBounds(group.getBounds(), { padding: [24, 24] });
  let me = null;
  const players = L.layerGroup().addTo(map);
  return {
    setPlayers(list) {
      players.clearLayers();
      for (const p of list) {
        L.circleMarker([p.lat, p.lon], { radius: 7, color: '#fff', fillColor: '#c2410c', fillOpacity: 1, weight: 2 })
          .bindTooltip(p.label, { permanent: true, direction: 'right', className: 'player-label' })
          .addTo(players);
      }
    },
    setPosition(position) {
      if (me) { me.remove(); me = null; }
      if (!position) return;
      me = L.layerGroup([
        L.circle([position.lat, position.lon], { radius: position.accuracy || 0, weight: 1, color: '#0b63ce' }),
        L.circleMarker([position.lat, position.lon], { radius: 8, color: '#fff', fillColor: '#0b63ce', fillOpacity: 1, weight: 3 }),
      ]).addTo(map);
    },
  };
}
