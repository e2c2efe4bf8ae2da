/**
 * `@tessera/schedule/machine` (Node only: it probes the host with gcc and reads sysfs): the machine
 * profile CPU schedules are sized for, and the parallel-payoff rule.
 */
export * from "./profile.js";
export * from "./cache-sizes.js";
export * from "./payoff.js";
