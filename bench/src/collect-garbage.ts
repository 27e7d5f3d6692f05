import * as v8 from 'node:v8';
import * as vm from 'node:vm';

// Exposed once for the process: benchmarks collect the garbage of generating and parsing histories
// before a timed call, so that a major collection the harness caused is not charged to the code
// being measured.
v8.setFlagsFromString('--expose-gc');

/** Runs a full garbage collection now. */
export const collectGarbage = vm.runInNewContext('gc') as () => void;
