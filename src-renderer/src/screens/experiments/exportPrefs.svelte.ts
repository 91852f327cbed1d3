/**
 * Issue 26 item 6: whether an export comes with its reproducibility manifest. One click is always
 * one download: with the manifest (the default) the file and `<file>.manifest.json` come as one
 * `<file>.zip`; without, the file alone. Kept in localStorage, shared by every export button.
 */
const KEY = 'fairground.exportWithManifest';

function read(): boolean {
  try {
    return globalThis.localStorage?.getItem(KEY) !== 'false';
  } catch {
    return true;
  }
}

export const exportPrefs = $state<{ withManifest: boolean }>({ withManifest: read() });

export function setWithManifest(on: boolean): void {
  exportPrefs.withManifest = on;
  try {
    globalThis.localStorage?.setItem(KEY, String(on));
  } catch {
    // unavailable storage: the choice holds for this session
  }
}
