/**
 * A small EventEmitter with Node's method set, for the RDF/JS streams and sink results of the
 * core: RDF/JS types them as Node EventEmitters, and the core may not import node:events.
 */
type Listener = (...args: any[]) => void;

interface Entry { fn: Listener; once: boolean }

/** Events by name; listeners run synchronously in registration order, like Node's. */
export class Emitter {
  private readonly events = new Map<string | symbol, Entry[]>();
  private max = 10;

  private add(name: string | symbol, fn: Listener, once: boolean, prepend: boolean): this {
    const list = this.events.get(name) ?? [];
    if (prepend) list.unshift({ fn, once });
    else list.push({ fn, once });
    this.events.set(name, list);
    this.listenerAdded(name);
    return this;
  }

  /** Called after a listener is added (streams start flowing on `data`). */
  protected listenerAdded(_name: string | symbol): void {}

  on(name: string | symbol, fn: Listener): this { return this.add(name, fn, false, false); }
  addListener(name: string | symbol, fn: Listener): this { return this.add(name, fn, false, false); }
  once(name: string | symbol, fn: Listener): this { return this.add(name, fn, true, false); }
  prependListener(name: string | symbol, fn: Listener): this { return this.add(name, fn, false, true); }
  prependOnceListener(name: string | symbol, fn: Listener): this { return this.add(name, fn, true, true); }

  off(name: string | symbol, fn: Listener): this {
    const list = this.events.get(name);
    if (list) {
      const i = list.findIndex((e) => e.fn === fn);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.events.delete(name);
    }
    return this;
  }
  removeListener(name: string | symbol, fn: Listener): this { return this.off(name, fn); }

  removeAllListeners(name?: string | symbol): this {
    if (name === undefined) this.events.clear();
    else this.events.delete(name);
    return this;
  }

  /** Call the listeners of `name`; an `error` nobody listens to is thrown, as in Node. */
  emit(name: string | symbol, ...args: unknown[]): boolean {
    const list = this.events.get(name);
    if (!list || list.length === 0) {
      if (name === 'error') throw args[0] instanceof Error ? args[0] : new Error(String(args[0]));
      return false;
    }
    for (const e of [...list]) {
      if (e.once) this.off(name, e.fn);
      e.fn.apply(this, args);
    }
    return true;
  }

  listeners(name: string | symbol): Function[] { return (this.events.get(name) ?? []).map((e) => e.fn); }
  rawListeners(name: string | symbol): Function[] { return this.listeners(name); }
  listenerCount(name: string | symbol): number { return this.events.get(name)?.length ?? 0; }
  eventNames(): (string | symbol)[] { return [...this.events.keys()]; }
  setMaxListeners(n: number): this { this.max = n; return this; }
  getMaxListeners(): number { return this.max; }
}
