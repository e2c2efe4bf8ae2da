/**
 * Writing intrinsic descriptions and implementations as TVMScript text: the `T.match_buffer`
 * lines of the parameters (implementations give them symbolic strides and offset, as TVM's do,
 * so that the view of any actual region can be bound) and the root block around a body.
 */
export type Dim = readonly [rows: number, cols: number];

export interface BufferSpec {
  readonly name: string;
  readonly param: string;
  readonly dims: Dim;
  readonly dtype: string;
  readonly scope: string;
  readonly offsetFactor?: number;
}

/** `T.match_buffer` of one parameter; `layoutVars` adds `<name>_s1, <name>_s0` strides and a `<name>_off` offset. */
export function matchBuffer(b: BufferSpec, layoutVars: boolean): string {
  const layout = layoutVars ? `, strides=[${b.name}_s1, ${b.name}_s0], elem_offset=${b.name}_off` : "";
  const [rows, cols] = b.dims;
  return `    ${b.name} = T.match_buffer(${b.param}, (${rows}, ${cols}), "${b.dtype}", align=64, offset_factor=${b.offsetFactor ?? cols}, scope="${b.scope}"${layout})`;
}

/** `name[0:rows, 0:cols]`. */
export const region = (b: BufferSpec): string => `${b.name}[0:${b.dims[0]}, 0:${b.dims[1]}]`;

export interface IntrinFunc {
  readonly buffers: readonly BufferSpec[];
  readonly reads: readonly BufferSpec[];
  readonly writes: readonly BufferSpec[];
  /** Statements of the root block, indented by 8. */
  readonly body: string;
  /** Implementations: symbolic strides and offsets for every buffer. */
  readonly layoutVars: boolean;
}

/** One PrimFunc of handle parameters whose body is the root block with the given regions. */
export function intrinFunc(f: IntrinFunc): string {
  const vars = f.layoutVars ? f.buffers.flatMap((b) => [`${b.name}_s1`, `${b.name}_s0`, `${b.name}_off`].map((v) => `    ${v} = T.int32()\n`)).join("") : "";
  return `
@T.prim_func
def f(${f.buffers.map((b) => `${b.param}: T.handle`).join(", ")}):
${vars}${f.buffers.map((b) => matchBuffer(b, f.layoutVars)).join("\n")}
    with T.block("root"):
        T.reads(${f.reads.map(region).join(", ")})
        T.writes(${f.writes.map(region).join(", ")})
${f.body}
`;
}

/** A description and an implementation that share buffers and regions. */
export function intrinPair(parts: Omit<IntrinFunc, "body" | "layoutVars">, desc: string, impl: string): { desc: string; impl: string } {
  return { desc: intrinFunc({ ...parts, body: desc, layoutVars: false }), impl: intrinFunc({ ...parts, body: impl, layoutVars: true }) };
}
