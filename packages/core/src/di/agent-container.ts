import 'reflect-metadata';

import { type DependencyContainer, type InjectionToken, Lifecycle } from 'tsyringe';

/** A class that tsyringe can construct (its interface-typed parameters carry `@inject(TOKEN)`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tsyringe builds any constructor
export type Constructor<T> = new (...args: any[]) => T;

/**
 * One agent's dependency container: a tsyringe child container of the runtime's root, which holds
 * only stateless shared services (the model registry). Everything stateful is registered here, per
 * agent: its id, event bus, store, LLM client, token counter, strategy context and context manager
 * (tokens in `di/injection-tokens.ts`).
 *
 * The kernel resolves its services from it and may register its own (`registerValue`,
 * `registerFactory`, `registerScoped`). The raw tsyringe container stays inside.
 * @see docs/02-architecture.md
 */
export class AgentContainer {
  private readonly container: DependencyContainer;
  private disposed = false;

  constructor(parent: DependencyContainer) {
    this.container = parent.createChildContainer();
  }

  /** Registers a value (replaces an earlier registration of the token in this container). */
  registerValue<T>(token: InjectionToken<T>, value: T): this {
    this.container.register(token, { useValue: value });
    return this;
  }

  /** Registers a factory, called on every `resolve` (cache inside the factory when needed). */
  registerFactory<T>(token: InjectionToken<T>, factory: (container: AgentContainer) => T): this {
    this.container.register(token, { useFactory: () => factory(this) });
    return this;
  }

  /** Registers a class as a singleton of this agent (`Lifecycle.ContainerScoped`). */
  registerScoped<T>(token: InjectionToken<T>, implementation: Constructor<T>): this {
    this.container.register(token, { useClass: implementation }, { lifecycle: Lifecycle.ContainerScoped });
    return this;
  }

  /** Resolves a service; tsyringe throws when the token is not registered here or in the root. */
  resolve<T>(token: InjectionToken<T>): T {
    return this.container.resolve(token);
  }

  /** True when the token is registered in this container (or, with `recursive`, in the root). */
  isRegistered<T>(token: InjectionToken<T>, recursive = false): boolean {
    return this.container.isRegistered(token, recursive);
  }

  /** A scope below this container (e.g. per request); registrations there do not leak back. */
  createChild(): AgentContainer {
    return new AgentContainer(this.container);
  }

  /** Disposes the disposable instances tsyringe created here. Safe to call more than once. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.container.dispose();
  }
}
