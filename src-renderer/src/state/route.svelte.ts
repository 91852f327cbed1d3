/** Hash routing (`#/models`): works the same under the Electron custom protocol and in browser mode. */
export const SCREENS = [
  { id: 'collections', label: 'Collections', key: '1' },
  { id: 'models', label: 'Models', key: '2' },
  { id: 'experiments', label: 'Experiments', key: '3' },
  { id: 'results', label: 'Results', key: '4' },
  { id: 'conversations', label: 'Conversations', key: '5' },
  { id: 'settings', label: 'Settings', key: '6' },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

function parse(hash: string): { screen: ScreenId; rest: string[] } {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const first = parts[0] as ScreenId | undefined;
  const screen = SCREENS.some((s) => s.id === first) ? (first as ScreenId) : 'collections';
  return { screen, rest: parts.slice(1) };
}

export const route = $state(parse(window.location.hash));

window.addEventListener('hashchange', () => {
  const next = parse(window.location.hash);
  route.screen = next.screen;
  route.rest = next.rest;
});

export function go(screen: ScreenId, ...rest: string[]): void {
  window.location.hash = `#/${[screen, ...rest].map(encodeURIComponent).join('/')}`;
}
