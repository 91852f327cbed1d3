/** Response types the screens use, inferred from the API contract. */
import type { ApiOutput } from '$contract';

export type AppInfo = ApiOutput<'app.info'>;
export type StartupState = ApiOutput<'app.startup'>;
export type WorkspaceInfo = ApiOutput<'workspace.info'>;
export type SettingsValue = ApiOutput<'settings.get'>;
