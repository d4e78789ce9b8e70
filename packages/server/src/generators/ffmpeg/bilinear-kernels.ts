/**
 * The renderer's per-frame resampling, as two WebAssembly SIMD kernels (8 and 16 pixels per step).
 * Bilinear weights are 8-bit (1/256 pixel), like ffmpeg's own perspective filter, which these
 * replace: that filter recomputes a floating-point position table for every pixel of every frame
 * and resamples one pixel at a time, and measured as the renderer's largest cost (more than x264).
 *
 *   hpass: each source row -> one intermediate row. Output pixel i of a block of 8 blends source
 *          bytes base+m[i] and base+m[i]+1 with weight w[i]/256. The column table is the same for
 *          every row: 48 bytes per block (16 mask bytes, 8 x i16 weights, i32 base, padding).
 *   vpass: out = (a * (256 - w) + b * w + 128) >> 8 over two rows, 16 bytes per step.
 * Both loops run at least once: callers pass counts > 0 and pad buffers to whole steps.
 */
import { I32, V128, assembleModule, op, type Code, type WasmFunction } from './wasm-bytes.ts';

/** Bytes per block of 8 output pixels in an hpass column table. */
export const BLOCK_BYTES = 48;
const PAGE = 65536;

/** (l * inv + r * w + 128) >> 8 on i16x8 lanes, where inv = 256 - w; each argument pushes a v128. */
const lerp = (l: Code, r: Code, w: Code, inv: Code): Code[] => [
  l,
  inv,
  op.i16x8Mul,
  r,
  w,
  op.i16x8Mul,
  op.i16x8Add,
  op.i32Const(128),
  op.i16x8Splat,
  op.i16x8Add,
  op.i32Const(8),
  op.i16x8ShrU,
];
const countdown = (local: number, step: number): Code[] => [
  op.localGet(local),
  op.i32Const(step),
  op.i32Sub,
  op.localTee(local),
  op.i32Const(0),
  op.i32GtS,
  op.brIf(0),
];
const advance = (local: number, by: Code): Code[] => [op.localGet(local), by, op.i32Add, op.localSet(local)];
const get = op.localGet;

// hpass(dst, src, table, blocks, rows, srcStride, dstStride); locals 7 t, 8 s, 9 d, 10 b, 11 v, 12 m, 13 w.
const hpass: WasmFunction = {
  name: 'hpass',
  params: [I32, I32, I32, I32, I32, I32, I32],
  locals: [
    [4, I32],
    [3, V128],
  ],
  body: [
    op.loop(
      get(2),
      op.localSet(7),
      get(1),
      op.localSet(8),
      get(0),
      op.localSet(9),
      get(3),
      op.localSet(10),
      op.loop(
        get(8),
        get(7),
        op.i32Load(32),
        op.i32Add,
        op.v128Load(),
        op.localSet(11),
        get(7),
        op.v128Load(0),
        op.localSet(12),
        get(7),
        op.v128Load(16),
        op.localSet(13),
        get(9),
        ...lerp(
          [...get(11), ...get(12), ...op.i8x16Swizzle, ...op.i16x8ExtendLowI8x16U],
          [
            ...get(11),
            ...get(12),
            ...op.i32Const(1),
            ...op.i8x16Splat,
            ...op.i8x16Add,
            ...op.i8x16Swizzle,
            ...op.i16x8ExtendLowI8x16U,
          ],
          get(13),
          [...op.i32Const(256), ...op.i16x8Splat, ...get(13), ...op.i16x8Sub],
        ),
        op.localSet(11),
        get(11),
        get(11),
        op.i8x16NarrowI16x8U,
        op.v128Store64Lane0(),
        ...advance(7, op.i32Const(BLOCK_BYTES)),
        ...advance(9, op.i32Const(8)),
        ...countdown(10, 1),
      ),
      ...advance(1, get(5)),
      ...advance(0, get(6)),
      ...countdown(4, 1),
    ),
  ],
};

// vpass(dst, a, b, n, w); locals 5 inv splat, 6 w splat, 7 va, 8 vb.
const rowHalf = (extend: Code): Code[] => lerp([...get(7), ...extend], [...get(8), ...extend], get(6), get(5));
const vpass: WasmFunction = {
  name: 'vpass',
  params: [I32, I32, I32, I32, I32],
  locals: [[4, V128]],
  body: [
    op.i32Const(256),
    get(4),
    op.i32Sub,
    op.i16x8Splat,
    op.localSet(5),
    get(4),
    op.i16x8Splat,
    op.localSet(6),
    op.loop(
      get(1),
      op.v128Load(),
      op.localSet(7),
      get(2),
      op.v128Load(),
      op.localSet(8),
      get(0),
      ...rowHalf(op.i16x8ExtendLowI8x16U),
      ...rowHalf(op.i16x8ExtendHighI8x16U),
      op.i8x16NarrowI16x8U,
      op.v128Store(),
      ...advance(0, op.i32Const(16)),
      ...advance(1, op.i32Const(16)),
      ...advance(2, op.i32Const(16)),
      ...countdown(3, 16),
    ),
  ],
};

let compiled: WebAssembly.Module | undefined;

export interface BilinearKernels {
  /** The instance's whole memory, as bytes; re-read after `reserve`, which may replace it. */
  bytes(): Uint8Array;
  /** Makes the memory at least `size` bytes long. */
  reserve(size: number): void;
  hpass(
    dst: number,
    src: number,
    table: number,
    blocks: number,
    rows: number,
    srcStride: number,
    dstStride: number,
  ): void;
  vpass(dst: number, a: number, b: number, n: number, w: number): void;
}

/** A fresh instance with its own memory: one per render, so concurrent renders never share state. */
export function createKernels(): BilinearKernels {
  compiled ??= new WebAssembly.Module(assembleModule([hpass, vpass], 1));
  const instance = new WebAssembly.Instance(compiled, {});
  const memory = instance.exports.memory as WebAssembly.Memory;
  const fns = instance.exports as unknown as Pick<BilinearKernels, 'hpass' | 'vpass'>;
  return {
    bytes: () => new Uint8Array(memory.buffer),
    reserve: (size) => {
      const missing = size - memory.buffer.byteLength;
      if (missing > 0) memory.grow(Math.ceil(missing / PAGE));
    },
    hpass: fns.hpass,
    vpass: fns.vpass,
  };
}
