import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';
import { startCalibrationJob } from '../services/simulation/calibration';
import { startPowerJob } from '../services/simulation/powerJob';

type ModelHandlers = Pick<
  Handlers,
  'models.list' | 'models.add' | 'models.addSim' | 'simulate.power' | 'simulate.calibration' | 'models.download' | 'models.remove' | 'models.updateSettings' | 'models.try' | 'models.tune' | 'models.clearCache' | 'remotes.list' | 'remotes.add' | 'remotes.updateEndpoints' | 'remotes.check' | 'remotes.updateSettings' | 'remotes.stats' | 'remotes.remove' | 'remotes.try'
>;

export function modelHandlers(s: AppServices): ModelHandlers {
  return {
    'models.list': () => s.models.list(),
    'models.add': ({ path, name }) => s.models.add(path, name),
    'models.addSim': ({ name, profile }) => s.models.addSim({ name, profile }),
    'simulate.power': (input) => startPowerJob(s, input),
    'simulate.calibration': (input) => startCalibrationJob(s, input),
    'models.download': ({ url, sha256, name }) => s.models.startDownload({ url, sha256: sha256?.toLowerCase(), name }),
    'models.remove': async ({ id }) => ({ removed: await s.models.remove(id) }),
    'models.updateSettings': ({ id, settings }) => s.models.updateSettings(id, settings),
    'models.try': ({ id, request }) => {
      const { streamId, ...rest } = request;
      // Streamed text goes out as events to every connected window; the id tells them apart.
      const onText = streamId === undefined ? undefined : (text: string, tokens: number) => s.events.emit('models.tryText', { streamId, text, tokens });
      return s.models.try({ kind: 'local', modelId: id }, { ...rest, onText });
    },
    'models.tune': async ({ id }) => {
      const { tuning: _measured, ...info } = await s.models.tune(id);
      return info;
    },
    'models.clearCache': ({ id }) => ({ removed: s.models.clearCache(id) }),
    'remotes.list': () => s.models.listRemotes(),
    'remotes.add': ({ timeoutSeconds, ...input }) => s.models.addRemote({ ...input, ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}) }),
    'remotes.updateSettings': ({ id, timeoutSeconds, recheckAfterSeconds }) => s.models.updateRemoteSettings(id, { timeoutSeconds, recheckAfterSeconds }),
    'remotes.updateEndpoints': ({ id, endpoints }) => s.models.updateRemoteEndpoints(id, endpoints),
    'remotes.check': ({ id }) => s.models.checkRemote(id),
    'remotes.stats': ({ id }) => s.models.remoteStats(id),
    'remotes.remove': async ({ id }) => ({ removed: await s.models.removeRemote(id) }),
    'remotes.try': ({ id, request }) => s.models.try({ kind: 'remote', endpointId: id }, request),
  };
}
