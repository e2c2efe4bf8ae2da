/** The machine profile lives in @tessera/schedule/machine (the tuned CPU space uses it too); re-exported for the d2l schedules. */
export * from "@tessera/schedule/machine";
