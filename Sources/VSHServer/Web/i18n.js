// The app's own words in the player's language. English is written in the code; every other
// language is a file in i18n/ (i18n/es.json) that maps each English text to its translation, so a
// translator edits one JSON file and nothing else (docs/translating.md). `{name}` in a text is a
// value put in when it is shown. A text missing from a file is shown in English.

/** The languages of the app's own texts: code → the language's own name. */
export const languages = { en: 'English', es: 'Español' };
const KEY = 'vsh.language';
let words = {};
let current = 'en';
let intlLocale = 'en';

/** The language of the texts now ('en', 'es'). */
export const language = () => current;

/** The locale dates and numbers are written in: the browser's own when it speaks that language. */
export const locale = () => intlLocale;

/** The player's choice, else the first of the browser's languages (its Accept-Language) that the app speaks. */
export function chosen(preferred = navigator.languages || [navigator.language || 'en']) {
  let stored = null;
  try { stored = localStorage.getItem(KEY); } catch (_) { stored = null; }
  if (stored && languages[stored]) return stored;
  for (const tag of preferred) {
    const code = String(tag).toLowerCase().split('-')[0];
    if (languages[code]) return code;
  }
  return 'en';
}

/** Loads a language's texts (from the server, or the service worker's copy offline). */
export async function load(code = chosen()) {
  let loaded = {};
  if (code !== 'en') {
    try {
      const answer = await fetch(`/app/i18n/${code}.json`);
      if (answer.ok) loaded = await answer.json();
      else code = 'en';
    } catch (_) {
      code = 'en';
    }
  }
  words = loaded;
  current = code;
  const browser = (navigator.languages || []).find((tag) => String(tag).toLowerCase().split('-')[0] === code);
  intlLocale = browser || code;
  document.documentElement.lang = code;
  return code;
}

/** Remembers the player's choice of language (null: follow the browser again). */
export function remember(code) {
  try {
    if (code) localStorage.setItem(KEY, code);
    else localStorage.removeItem(KEY);
  } catch (_) { /* private mode: this visit only */ }
}

/** The text in the current language, with its `{values}` put in. */
export function t(text, values = {}) {
  const translated = Object.prototype.hasOwnProperty.call(words, text) ? words[text] : text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
