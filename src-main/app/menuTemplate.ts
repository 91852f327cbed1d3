/** The application menu, as plain data (built into a Menu by main.ts). */
import type { MenuItemConstructorOptions } from 'electron';

export function menuTemplate(platform: NodeJS.Platform, navigate: (screen: string) => void): MenuItemConstructorOptions[] {
  const screens = ['collections', 'models', 'experiments', 'results', 'conversations', 'settings'];
  const go: MenuItemConstructorOptions[] = screens.map((s, i) => ({
    label: s[0]!.toUpperCase() + s.slice(1),
    accelerator: `Alt+${i + 1}`,
    click: () => navigate(s),
  }));
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { label: 'Go', submenu: go },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
