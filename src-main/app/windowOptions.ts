/**
 * The one place BrowserWindow options are decided: every window is isolated, sandboxed and has
 * no Node integration (Electron security checklist items 2-4, 6, 8-10).
 */
import type { BrowserWindowConstructorOptions } from 'electron';

/** `devTools`: true only when running from sources (`!app.isPackaged`); packaged builds have no DevTools. */
export function mainWindowOptions(preloadPath: string, dark: boolean, devTools = false): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    title: 'Fairground',
    show: false,
    backgroundColor: dark ? '#15181c' : '#f7f7f5',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
      devTools,
      safeDialogs: true,
    },
  };
}
