/**
 * A worker for the task-pool tests: each task adds one to a shared counter, then waits (up to
 * `waitMs`) until the counter reaches `expected`; it answers whether it did — true only when
 * that many tasks ran at the same time.
 */
import { serveTasks } from "../../src/isolation/serve.js";

interface Rendezvous {
  readonly counter: Int32Array;
  readonly expected: number;
  readonly waitMs: number;
}

serveTasks<Rendezvous, boolean>(({ counter, expected, waitMs }) => {
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const seen = Atomics.load(counter, 0);
    if (seen >= expected) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.wait(counter, 0, seen, left);
  }
});
