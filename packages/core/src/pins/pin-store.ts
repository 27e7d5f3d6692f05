import type { IContextStore, StoreKey } from '../contracts/context-store';
import { StoreError } from '../errors/store-error';
import { formatStoreKey } from '../stores/store-key';
import { readVersioned, writeIfVersion } from '../stores/versioned-store-access';
import { type PinsState, toPinsState } from './pins-state';

/** Compare-and-set attempts of one change before it gives up. */
const MAX_ATTEMPTS = 8;

/** Where a session's pins are kept. */
export interface PinStoreOptions {
  store: IContextStore;
  agentId: string;
  sessionId: string;
}

/**
 * A session's pins in its store (kind `state`, name `pins`). Every change is a compare-and-set
 * (where the store offers it), so several processes serving one session never lose each other's pins.
 */
export class PinStore {
  constructor(private readonly options: PinStoreOptions) {}

  /** The session's pins as stored now. */
  async read(): Promise<PinsState> {
    return toPinsState((await readVersioned(this.options.store, this.key()))?.value);
  }

  /**
   * Applies `change` to the stored state and writes the result if nobody wrote in between; reads
   * again and applies `change` again when somebody did. `change` returns `undefined` for "nothing to write".
   * @returns the state after the change (the stored one when nothing was written)
   * @throws StoreError when the store fails, or when other writers won every attempt
   * @throws whatever `change` throws (nothing is written then)
   */
  async update(change: (state: PinsState) => PinsState | undefined): Promise<PinsState> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await readVersioned(this.options.store, this.key());
      const current = toPinsState(read?.value);
      const next = change(current);
      if (next === undefined) return current;
      const written = await writeIfVersion(this.options.store, this.key(), next, read?.version);
      if (written.ok) return next;
    }
    throw new StoreError(
      this.options.store.name,
      'setIfVersion',
      formatStoreKey(this.key()),
      `other writers changed the pins ${MAX_ATTEMPTS} times in a row`,
    );
  }

  private key(): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'state', name: 'pins' };
  }
}
