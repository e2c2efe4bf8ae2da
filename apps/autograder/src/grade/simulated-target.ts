/** The course's GPU: schedules are lowered with its limits when no GPU is present. */
export const SIMULATED_TARGET = "nvidia/tesla-t4";
