/**
 * Instructions: every primitive is an `InstructionKind`, and the `Schedule` runs each call through
 * one mechanism (`Schedule.invoke`) that applies the kind, records the instruction with its
 * decision, and adopts the new state only on success. Trace replay, JSON and `applyTrace`
 * printing all work from this one table of kinds.
 */
import type { PrimitiveContext } from "./context.js";
import type { RV } from "./handles.js";

/** An input of an instruction: a handle, a literal, `null` (TVM's None), or an array of those. */
export type InstructionInput = RV | number | string | boolean | null | readonly InstructionInput[];

/** An attribute: a compile-time constant. */
export type InstructionAttr = number | string | boolean | null | readonly InstructionAttr[] | { readonly [k: string]: InstructionAttr };

/** The decision of a sampling instruction (a tile list, a category index, a location). */
export type Decision = number | readonly number[];

export interface ApplyResult {
  readonly outputs: readonly RV[];
  /** Set by sampling instructions: the decision actually taken. */
  readonly decision?: Decision;
}

export interface InstructionKind {
  /** TVM's kind name, used in JSON traces: "Split", "GetBlock", … */
  readonly name: string;
  /** The `Schedule` method that performs it, used in `applyTrace` printing: "split", "getBlock", … */
  readonly method: string;
  /** Pure instructions (lookups, sampling) may be dropped when their outputs are unused. */
  readonly pure: boolean;
  /**
   * True when the `Schedule` method returns one handle (`const b = sch.getBlock(…)`) rather than
   * a list (`const [l1, l2] = sch.split(…)`); `applyTrace` printing and `Schedule.invoke1` use it.
   */
  readonly singleOutput: boolean;
  /** Names of the attributes, in order (for JSON documentation and printing). */
  readonly attrNames: readonly string[];
  apply(ctx: PrimitiveContext, inputs: readonly InstructionInput[], attrs: readonly InstructionAttr[], decision: Decision | undefined): ApplyResult;
  /**
   * Renders the call's arguments as TypeScript for `applyTrace` (the text between the parentheses
   * of `sch.<method>(…)`); inputs are already rendered (handles by their names).
   */
  formatArgs(inputs: readonly RenderedInput[], attrs: readonly InstructionAttr[], decision: Decision | undefined): string;
}

export type RenderedInput = string | readonly RenderedInput[];

const registry = new Map<string, InstructionKind>();

export function registerInstruction(kind: InstructionKind): InstructionKind {
  if (registry.has(kind.name)) throw new Error(`instruction kind ${kind.name} registered twice`);
  registry.set(kind.name, kind);
  return kind;
}

/** Looks a kind up by name; TVM's newer spellings (GetSBlock) are accepted as aliases. */
export function instructionKind(name: string): InstructionKind | undefined {
  return registry.get(name) ?? registry.get(name.replace("SBlock", "Block"));
}

export function allInstructionKinds(): InstructionKind[] {
  return [...registry.values()];
}

export interface Instruction {
  readonly kind: InstructionKind;
  readonly inputs: readonly InstructionInput[];
  readonly attrs: readonly InstructionAttr[];
  readonly outputs: readonly RV[];
}

/** Renders a TypeScript literal for an attribute value. */
export function tsLiteral(v: InstructionAttr | undefined): string {
  if (v === undefined || v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => tsLiteral(x)).join(", ")}]`;
  const entries = Object.keys(v as object)
    .sort()
    .map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${tsLiteral((v as Record<string, InstructionAttr>)[k])}`);
  return `{ ${entries.join(", ")} }`;
}

export function renderInput(x: RenderedInput): string {
  return typeof x === "string" ? x : `[${x.map(renderInput).join(", ")}]`;
}
