/**
 * Preload: exposes exactly the API client bridge (`window.fairground`) and nothing else of Node or
 * Electron. Bundled as CommonJS because sandboxed preloads cannot be ES modules.
 *
 * `droppedFile(file)` turns a File from a drop event into its path with `webUtils.getPathForFile`
 * (empty for a File a page constructed itself) and asks the main process to grant it (issue 15):
 * the page never hands a path string of its choosing to main.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';

const CALL_CHANNEL = 'fairground:call';
const EVENT_CHANNEL = 'fairground:event';
const PICK_FILE_CHANNEL = 'fairground:pickFile';
const DROPPED_FILE_CHANNEL = 'fairground:droppedFile';

contextBridge.exposeInMainWorld('fairground', {
  call: (method: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, method, input),
  pickFile: (request: unknown) => ipcRenderer.invoke(PICK_FILE_CHANNEL, request),
  droppedFile: (file: File) => ipcRenderer.invoke(DROPPED_FILE_CHANNEL, webUtils.getPathForFile(file)),
  onEvent: (listener: (event: unknown) => void) => {
    const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
    };
  },
});
