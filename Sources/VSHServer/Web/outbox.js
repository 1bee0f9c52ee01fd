// Check-ins taken without a connection (a casino floor is a dead zone) wait on the phone, in
// IndexedDB, each with the idempotency key it was made with, and are sent when the connection
// returns. The key makes a resend safe: the server answers a retry with the first verdict and
// records nothing new, so a check-in whose answer was lost is never counted twice.
import { sendCheckIn, OfflineError } from './api.js';

const DB = 'vsh';
const STORE = 'outbox';

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, work) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const result = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(result && 'result' in result ? result.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** Keeps a check-in to send later. */
export const keep = (item) => run('readwrite', (s) => s.put(item));
/** Every waiting check-in, oldest first. */
export const waiting = async () => ((await run('readonly', (s) => s.getAll())) || []).sort((a, b) => a.created - b.created);
export const drop = (key) => run('readwrite', (s) => s.delete(key));

let flushing = null;

/**
 * Sends the waiting check-ins of `playerID`, one at a time, oldest first. Each answered one
 * (whatever its verdict, or a refusal such as 422) leaves the outbox and is passed to `onSent`;
 * the first that gets no answer stops the round (still offline). One round at a time.
 */
export function flush(playerID, onSent = () => {}) {
  if (!flushing) {
    flushing = (async () => {
      let sent = 0;
      for (const item of await waiting()) {
        if (item.player !== playerID) continue;
        if (!navigator.onLine) break;
        let answer;
        try {
          answer = await sendCheckIn(item);
        } catch (error) {
          if (error instanceof OfflineError) break;
          throw error;
        }
        // Busy or rate-limited: keep it for the next round.
        if (answer.status === 429 || answer.status >= 500) break;
        await drop(item.key);
        sent += 1;
        onSent(item, answer);
      }
      return sent;
    })().finally(() => { flushing = null; });
  }
  return flushing;
}
