/** The app's version, from package.json (bundled at build time, read from source in development). */
import pkg from '../../package.json' with { type: 'json' };

export const APP_VERSION: string = pkg.version;
