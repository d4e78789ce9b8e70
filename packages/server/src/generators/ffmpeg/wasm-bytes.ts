/**
 * Just enough of the WebAssembly binary format to write a few small SIMD kernels by hand, so the
 * renderer needs no compiler toolchain and no prebuilt binary blob: the module is assembled from
 * this readable source at startup (a few hundred bytes, microseconds). Opcodes follow the
 * WebAssembly core and fixed-width SIMD specifications.
 */

export type Code = number[];

export const I32 = 0x7f;
export const V128 = 0x7b;

/** Unsigned LEB128. */
export function uleb(value: number): Code {
  const out: Code = [];
  let n = value >>> 0;
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (i32.const immediates). */
export function sleb(value: number): Code {
  const out: Code = [];
  let n = value | 0;
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const vec = (items: Code[]): Code => [...uleb(items.length), ...items.flat()];
const name = (text: string): Code => [...uleb(text.length), ...Buffer.from(text, 'utf8')];
const section = (id: number, body: Code): Code => [id, ...uleb(body.length), ...body];
// Memory immediates: alignment hint 0 (unaligned is always valid) and a byte offset.
const memarg = (offset: number): Code => [0, ...uleb(offset)];
const simd = (op: number, ...immediates: number[]): Code => [0xfd, ...uleb(op), ...immediates];

/** Instructions, named as in the text format. */
export const op = {
  localGet: (i: number): Code => [0x20, ...uleb(i)],
  localSet: (i: number): Code => [0x21, ...uleb(i)],
  localTee: (i: number): Code => [0x22, ...uleb(i)],
  i32Const: (v: number): Code => [0x41, ...sleb(v)],
  i32Load: (offset = 0): Code => [0x28, ...memarg(offset)],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32Mul: [0x6c],
  i32GtS: [0x4a],
  brIf: (depth: number): Code => [0x0d, ...uleb(depth)],
  /** A loop whose body runs once and repeats while it branches to depth 0. */
  loop: (...body: Code[]): Code => [0x03, 0x40, ...body.flat(), 0x0b],
  v128Load: (offset = 0): Code => simd(0x00, ...memarg(offset)),
  v128Store: (offset = 0): Code => simd(0x0b, ...memarg(offset)),
  v128Store64Lane0: (offset = 0): Code => simd(0x5b, ...memarg(offset), 0),
  i8x16Swizzle: simd(0x0e),
  i8x16Splat: simd(0x0f),
  i16x8Splat: simd(0x10),
  i8x16NarrowI16x8U: simd(0x66),
  i8x16Add: simd(0x6e),
  i16x8ExtendLowI8x16U: simd(0x89),
  i16x8ExtendHighI8x16U: simd(0x8a),
  i16x8ShrU: simd(0x8d),
  i16x8Add: simd(0x8e),
  i16x8Sub: simd(0x91),
  i16x8Mul: simd(0x95),
  i32x4Splat: simd(0x11),
  i16x8NarrowI32x4S: simd(0x85),
  i32x4ExtendLowI16x8U: simd(0xa9),
  i32x4ExtendHighI16x8U: simd(0xaa),
  i32x4ShrS: simd(0xac),
  i32x4Add: simd(0xae),
  i32x4Mul: simd(0xb5),
};

export interface WasmFunction {
  name: string;
  params: number[];
  /** Extra locals after the parameters, as [count, type] runs. */
  locals: Array<[number, number]>;
  body: Code[];
}

/** A module with one exported memory ("memory") and the given exported functions (no results). */
export function assembleModule(functions: WasmFunction[], memoryPages: number): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec([])]);
  const bodies = functions.map((f) => {
    const body = [...vec(f.locals.map(([count, type]) => [...uleb(count), type])), ...f.body.flat(), 0x0b];
    return [...uleb(body.length), ...body];
  });
  const exports = [[...name('memory'), 0x02, 0], ...functions.map((f, i) => [...name(f.name), 0x00, ...uleb(i)])];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec(types)),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(5, vec([[0x00, ...uleb(memoryPages)]])),
    ...section(7, vec(exports)),
    ...section(10, vec(bodies)),
  ]);
}
