/** Pushes API events (job progress, …) to whoever listens: the IPC bridge and WebSocket clients. */
import type { ApiEvent, ApiEventName } from '../api/contract/index';

export type EventListener = (event: ApiEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  emit<E extends ApiEventName>(event: E, payload: ApiEvent<E>['payload']): void {
    for (const l of this.listeners) {
      try {
        l({ event, payload } as ApiEvent);
      } catch {
        // One broken listener (a closed socket) must not stop the others.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
