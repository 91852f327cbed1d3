/**
 * Preload: exposes exactly the API client bridge (`window.fairground`) and nothing else of Node or
 * Electron. Bundled as CommonJS because sandboxed preloads cannot be ES modules.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

const CALL_CHANNEL = 'fairground:call';
const EVENT_CHANNEL = 'fairground:event';
const PICK_FILE_CHANNEL = 'fairground:pickFile';

contextBridge.exposeInMainWorld('fairground', {
  call: (method: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, method, input),
  pickFile: (request: unknown) => ipcRenderer.invoke(PICK_FILE_CHANNEL, request),
  onEvent: (listener: (event: unknown) => void) => {
    const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
    };
  },
});
