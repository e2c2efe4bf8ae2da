/** TVM's `RoundRobin` task scheduler: the tasks not done, one after another, cyclically. */
import { TaskScheduler } from "./task-scheduler.js";

export class RoundRobin extends TaskScheduler {
  readonly name = "round-robin";
  private last = -1;

  protected nextTaskId(): number {
    const n = this.tasks.length;
    for (let step = 0; step < n; step++) {
      this.last = (this.last + 1) % n;
      if (!this.tasks[this.last]!.done) return this.last;
    }
    return -1;
  }
}
