import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { FleetAsk, FleetReply, FleetRequest, FleetResult } from './fleet-protocol';

/** The built worker the fleet tests fork (`npx tsc -b` builds it). */
export const FLEET_WORKER = path.join(__dirname, '..', '..', 'dist', 'redis-fleet', 'fleet-worker.js');

/** Throws the fix when the worker has not been built. */
export function assertFleetWorkerBuilt(): void {
  if (!fs.existsSync(FLEET_WORKER))
    throw new Error(`${FLEET_WORKER} is missing: build with \`npx tsc -b\` before this test`);
}

/** Raised for a request whose worker died (killed, or crashed) before it answered. */
export class WorkerGoneError extends Error {}

/** One worker process of a fleet test and the replies it owes. */
export class FleetProcess {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (result: FleetResult) => void; reject: (error: Error) => void }
  >();
  private output = '';
  private gone = false;
  readonly ready: Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    child.stderr?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    let exited!: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.ready = new Promise((resolve, reject) => {
      child.on('message', (message: FleetReply) => {
        if (message.type === 'ready') return resolve();
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (message.type === 'failed') waiter?.reject(new Error(`worker ${name}: ${message.error}`));
        else waiter?.resolve(message.result);
      });
      child.once('exit', (code, signal) => {
        this.gone = true;
        const error = new WorkerGoneError(
          `worker ${name} exited (${signal ?? code}) ${signal === 'SIGKILL' ? '' : this.output}`,
        );
        reject(error);
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
        exited();
      });
    });
  }

  /** Forks a worker on the redis-server at `redisUrl`. */
  static start(name: string, redisUrl: string): FleetProcess {
    return new FleetProcess(name, fork(FLEET_WORKER, [redisUrl, name], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }));
  }

  get alive(): boolean {
    return !this.gone;
  }

  /** Sends `request`; rejects with {@link WorkerGoneError} when the process dies before answering. */
  ask(request: FleetAsk): Promise<FleetResult> {
    if (this.gone || !this.child.connected) return Promise.reject(new WorkerGoneError(`worker ${this.name} is gone`));
    const id = this.nextId++;
    const reply = new Promise<FleetResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const message: FleetRequest = { ...request, id };
    // Killed between the check and the send: the channel is closed, and the request is the dead process's.
    this.child.send(message, (error) => {
      if (!error) return;
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      waiter?.reject(new WorkerGoneError(`worker ${this.name} is gone: ${error.message}`));
    });
    return reply;
  }

  /** `kill -9`: the process ends at once, whatever it was doing. */
  async kill(): Promise<void> {
    if (!this.gone) this.child.kill('SIGKILL');
    await this.exited;
  }
}
