/**
 * A camera motion (camera-move.ts) as views over time. Every move shares one eased progress, so
 * combined moves start and stop together, at rest. Pure functions of time: any frame can be made
 * on its own, and the same prompt and seed always film the same shot.
 *
 * Geometry: a view shows 1/zoom of the canvas on each axis, centred at (cx, cy). Sideways travel
 * is bounded by the slack the zoom leaves, (1 - 1/zoom) / 2 either side of the middle; when a zoom
 * and a pan combine, the pan's offset grows linearly while the slack grows like 1 - zoom^-p, which
 * is concave, so a path that fits at its tight end fits all along.
 */
import {
  durationScale,
  easeInOut,
  MAX_ZOOM,
  PAN_ZOOM,
  ZOOM,
  type CameraMotion,
  type CameraSpeed,
  type CameraView,
} from './camera-move.ts';
import type { Random } from './seeded-random.ts';

export interface Shot {
  /** The view at time fraction t in [0, 1]. */
  viewAt(t: number): CameraView;
  /** The tightest magnification reached: how much larger than the output the canvas must be. */
  maxZoom: number;
}

// How much of the slack a pan uses, and how much closer an orbit swings mid-way.
const TRAVEL = 0.96;
const ORBIT_BUMP: Record<CameraSpeed, number> = { slow: 1.05, normal: 1.08, fast: 1.12 };
// Shake as a fraction of the frame's width, and its frequencies in Hz (weights sum to 1).
const SHAKE = {
  handheld: {
    amp: 0.005,
    waves: [
      [0.31, 0.5],
      [0.73, 0.33],
      [1.37, 0.17],
    ],
  },
  strong: {
    amp: 0.014,
    waves: [
      [0.9, 0.3],
      [2.3, 0.4],
      [4.1, 0.3],
    ],
  },
} as const;
// The zoom added so a shake never shows past the canvas: the slack must cover the jitter.
const SHAKE_MARGIN = 2.5;
// An extension's shake fades in over this long, so its first frame is the input's last.
const SHAKE_RAMP_SECONDS = 0.6;

interface Layout {
  zoomAt(p: number): number;
  /** Offset of the centre from the middle, in canvas fractions, per axis. */
  offsetAt(p: number): { x: number; y: number };
  bump: number;
}

/** A shot over a canvas larger than the frame (text- and image-to-video). */
export function planShot(motion: CameraMotion, durationSeconds: number, rnd: Random): Shot {
  return shot(freeLayout(motion, durationSeconds), motion, durationSeconds, rnd, false);
}

/**
 * An extension's shot: its first view is exactly the input's last frame (the whole canvas, or for
 * a pull-back the frame inside a padded canvas, `frameZoom` per axis), starting from rest.
 */
export function planExtensionShot(
  motion: CameraMotion,
  durationSeconds: number,
  rnd: Random,
  frameZoom = { x: 1, y: 1 },
): Shot {
  const base = shot(anchoredLayout(motion, durationSeconds), motion, durationSeconds, rnd, true);
  if (motion.zoom !== 'out') return base;
  // Pulling back from the frame: both axes shrink from the frame's own magnification towards 1.
  const end = 1 + SHAKE_MARGIN * shakeAmp(motion);
  return {
    maxZoom: Math.max(frameZoom.x, frameZoom.y),
    viewAt(t) {
      const p = easeInOut(t);
      const v = base.viewAt(t);
      const zoom = frameZoom.x * Math.pow(end / frameZoom.x, p);
      return clamp({ cx: v.cx, cy: v.cy, zoom, zoomY: frameZoom.y * Math.pow(end / frameZoom.y, p) });
    },
  };
}

/** How much larger than the frame an extension's canvas must be: only a pull-back needs room. */
export function extensionCanvasScale(motion: CameraMotion, durationSeconds: number): number {
  return motion.zoom === 'out' ? tightZoom(motion.speed, durationSeconds) * (1 + SHAKE_MARGIN * shakeAmp(motion)) : 1;
}

function shot(layout: Layout, motion: CameraMotion, durationSeconds: number, rnd: Random, rampShake: boolean): Shot {
  const amp = shakeAmp(motion);
  const waves = motion.shake
    ? SHAKE[motion.shake].waves.map(([hz, weight]) => ({
        hz,
        weight,
        px: rnd.range(0, 2 * Math.PI),
        py: rnd.range(0, 2 * Math.PI),
      }))
    : [];
  const viewAt = (t: number): CameraView => {
    const p = easeInOut(t);
    const seconds = t * durationSeconds;
    const ramp = rampShake ? smoothstep(seconds / SHAKE_RAMP_SECONDS) : 1;
    const shake = amp * ramp;
    const zoom = layout.zoomAt(p) * (1 + (layout.bump - 1) * Math.sin(Math.PI * p)) * (1 + SHAKE_MARGIN * shake);
    const offset = layout.offsetAt(p);
    let jx = 0;
    let jy = 0;
    for (const w of waves) {
      jx += w.weight * Math.sin(2 * Math.PI * w.hz * seconds + w.px);
      jy += w.weight * Math.sin(2 * Math.PI * w.hz * 1.13 * seconds + w.py);
    }
    // The jitter is a share of the view, so it looks the same at any zoom.
    return clamp({ cx: 0.5 + offset.x + (jx * shake) / zoom, cy: 0.5 + offset.y + (jy * shake) / zoom, zoom });
  };
  let maxZoom = 1;
  for (let i = 0; i <= 240; i++) maxZoom = Math.max(maxZoom, viewAt(i / 240).zoom);
  return { viewAt, maxZoom };
}

/** Generation: a zoom moves between the whole canvas and its tight end; a pan alone crosses the middle. */
function freeLayout(motion: CameraMotion, durationSeconds: number): Layout {
  const scale = durationScale(durationSeconds);
  const dir = direction(motion);
  const bump = motion.orbit ? ORBIT_BUMP[motion.speed] : 1;
  if (motion.zoom) {
    const tight = tightZoom(motion.speed, durationSeconds);
    const reach = travelAt(tight, scale);
    // The pan's offset is anchored at the tight end: nothing at the whole canvas, all of it close up.
    const share = (p: number) => (motion.zoom === 'in' ? p : p - 1);
    return {
      zoomAt: (p) => (motion.zoom === 'in' ? Math.pow(tight, p) : Math.pow(tight, 1 - p)),
      offsetAt: (p) => ({ x: dir.x * reach * share(p), y: dir.y * reach * share(p) }),
      bump,
    };
  }
  if (!dir.x && !dir.y && !motion.orbit) return { zoomAt: () => 1, offsetAt: () => ({ x: 0, y: 0 }), bump };
  const zoom = PAN_ZOOM[motion.speed];
  const slack = travelAt(zoom, scale) * 2;
  const rise = motion.orbit ? 0.3 * slack : 0;
  return {
    zoomAt: () => zoom,
    offsetAt: (p) => ({
      x: dir.x * (p - 0.5) * slack,
      y: dir.y * (p - 0.5) * slack - (rise * Math.sin(Math.PI * p)) / 2,
    }),
    bump,
  };
}

/** Extension: everything starts at the whole frame; a pan or orbit travels while closing in. */
function anchoredLayout(motion: CameraMotion, durationSeconds: number): Layout {
  const scale = durationScale(durationSeconds);
  const bump = motion.orbit ? ORBIT_BUMP[motion.speed] : 1;
  if (motion.zoom === 'out') return { zoomAt: () => 1, offsetAt: () => ({ x: 0, y: 0 }), bump: 1 };
  const dir = direction(motion);
  const moves = motion.zoom === 'in' || dir.x || dir.y || motion.orbit;
  if (!moves) return { zoomAt: () => 1, offsetAt: () => ({ x: 0, y: 0 }), bump };
  const tight = motion.zoom === 'in' ? tightZoom(motion.speed, durationSeconds) : PAN_ZOOM[motion.speed];
  const reach = travelAt(tight, scale);
  return { zoomAt: (p) => Math.pow(tight, p), offsetAt: (p) => ({ x: dir.x * reach * p, y: dir.y * reach * p }), bump };
}

/** +1 right or down, -1 left or up. Panning left reveals what lies left: the view moves towards x = 0. */
function direction(motion: CameraMotion): { x: number; y: number } {
  const sideways = motion.orbit ?? motion.pan;
  return {
    x: sideways === 'left' ? -1 : sideways === 'right' ? 1 : 0,
    y: motion.tilt === 'up' ? -1 : motion.tilt === 'down' ? 1 : 0,
  };
}

function tightZoom(speed: CameraSpeed, durationSeconds: number): number {
  return Math.min(MAX_ZOOM, Math.exp(Math.log(ZOOM[speed]) * durationScale(durationSeconds)));
}

/** Half the sideways travel a view at `zoom` may make from the middle. */
function travelAt(zoom: number, scale: number): number {
  return ((1 - 1 / zoom) / 2) * Math.min(1, 0.6 + 0.4 * scale) * TRAVEL;
}

function shakeAmp(motion: CameraMotion): number {
  return motion.shake ? SHAKE[motion.shake].amp : 0;
}

function smoothstep(x: number): number {
  const c = Math.min(1, Math.max(0, x));
  return c * c * (3 - 2 * c);
}

/** Keeps the view on the canvas whatever the jitter did. */
function clamp(view: CameraView): CameraView {
  const hx = 1 / (2 * view.zoom);
  const hy = 1 / (2 * (view.zoomY ?? view.zoom));
  const within = (v: number, h: number) => (h >= 0.5 ? 0.5 : Math.min(1 - h, Math.max(h, v)));
  return { ...view, cx: within(view.cx, hx), cy: within(view.cy, hy) };
}
