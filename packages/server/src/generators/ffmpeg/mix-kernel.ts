/**
 * The plane mix of frame-colour.ts, `out = (fa * A + fb * B + c) >> 8` with fa, fb and c in fixed
 * point (8 fractional bits), as a WebAssembly SIMD kernel: 16 bytes per step in 32-bit lanes (a gain
 * of up to 2.5 times a byte overflows 16 bits), narrowed back to bytes with saturation, which is the
 * clamp. The same loop in JavaScript cost about 3.5 ms per 720p frame on the shared box, three times
 * a resample, and a dissolve mixes most of its frames.
 *
 *   mix(dst, a, b, n, fa, fb, c): n bytes (a multiple of 16; callers pad), b may equal a with fb 0.
 */
import { I32, V128, assembleModule, op, type Code, type WasmFunction } from './wasm-bytes.ts';

const PAGE = 65536;
const get = op.localGet;
const advance = (local: number, by: Code): Code[] => [op.localGet(local), by, op.i32Add, op.localSet(local)];

// Locals: 7 fa splat, 8 fb splat, 9 c splat, 10 va, 11 vb.
const quarter = (half: Code, part: Code): Code[] => [
  get(10),
  half,
  part,
  get(7),
  op.i32x4Mul,
  get(11),
  half,
  part,
  get(8),
  op.i32x4Mul,
  op.i32x4Add,
  get(9),
  op.i32x4Add,
  op.i32Const(8),
  op.i32x4ShrS,
];
const half = (extend: Code): Code[] => [
  ...quarter(extend, op.i32x4ExtendLowI16x8U),
  ...quarter(extend, op.i32x4ExtendHighI16x8U),
  op.i16x8NarrowI32x4S,
];
const mix: WasmFunction = {
  name: 'mix',
  params: [I32, I32, I32, I32, I32, I32, I32],
  locals: [[5, V128]],
  body: [
    get(4),
    op.i32x4Splat,
    op.localSet(7),
    get(5),
    op.i32x4Splat,
    op.localSet(8),
    get(6),
    op.i32x4Splat,
    op.localSet(9),
    op.loop(
      get(1),
      op.v128Load(),
      op.localSet(10),
      get(2),
      op.v128Load(),
      op.localSet(11),
      get(0),
      ...half(op.i16x8ExtendLowI8x16U),
      ...half(op.i16x8ExtendHighI8x16U),
      op.i8x16NarrowI16x8U,
      op.v128Store(),
      ...advance(0, op.i32Const(16)),
      ...advance(1, op.i32Const(16)),
      ...advance(2, op.i32Const(16)),
      op.localGet(3),
      op.i32Const(16),
      op.i32Sub,
      op.localTee(3),
      op.i32Const(0),
      op.i32GtS,
      op.brIf(0),
    ),
  ],
};

let compiled: WebAssembly.Module | undefined;

/** One plane mix at a time over frames of `bytes` bytes, in an instance of its own. */
export class MixKernel {
  private readonly memory: Uint8Array;
  private readonly run: (dst: number, a: number, b: number, n: number, fa: number, fb: number, c: number) => void;
  private readonly at: { a: number; b: number; out: number };

  constructor(bytes: number) {
    compiled ??= new WebAssembly.Module(assembleModule([mix], 1));
    const instance = new WebAssembly.Instance(compiled, {});
    const memory = instance.exports.memory as WebAssembly.Memory;
    // Each region padded by a step, so the last one may run past a plane's end.
    const region = Math.ceil(bytes / 16) * 16 + 16;
    const missing = 3 * region - memory.buffer.byteLength;
    if (missing > 0) memory.grow(Math.ceil(missing / PAGE));
    this.memory = new Uint8Array(memory.buffer);
    this.at = { a: 0, b: region, out: 2 * region };
    this.run = instance.exports.mix as MixKernel['run'];
  }

  /** Copies A (and B) in; afterwards `mixPlane` works on their byte ranges. */
  load(a: Uint8Array, b?: Uint8Array): void {
    this.memory.set(a, this.at.a);
    if (b) this.memory.set(b, this.at.b);
  }

  /** Mixes bytes `offset`..`offset + length` into the output region (B ignored when `fb` is 0). */
  mixPlane(offset: number, length: number, fa: number, fb: number, c: number, withB: boolean): void {
    const b = withB ? this.at.b : this.at.a;
    const n = Math.max(16, Math.ceil(length / 16) * 16);
    this.run(this.at.out + offset, this.at.a + offset, b + offset, n, fa, fb, c);
  }

  /** Copies the output's first `length` bytes out. */
  store(into: Uint8Array, length: number): void {
    into.set(this.memory.subarray(this.at.out, this.at.out + length));
  }
}
