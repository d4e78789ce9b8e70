/**
 * The camera move of a clip: read from the prompt's own words, then turned into a path of views over
 * a still canvas. Pure functions only, so the look of a move is unit-testable without ffmpeg.
 *
 * `parseCameraMove` and `cameraPath` describe one move; the renderer reads the whole prompt with
 * `parseCameraMotion` (moves combined, orbit, shake; camera-shot.ts turns that into views).
 */

export type CameraMoveKind = 'push-in' | 'pull-back' | 'pan-left' | 'pan-right' | 'tilt-up' | 'tilt-down' | 'static';
export type CameraSpeed = 'slow' | 'normal' | 'fast';

export interface CameraMove {
  kind: CameraMoveKind;
  speed: CameraSpeed;
}

/**
 * One view of the canvas. `cx`/`cy` are the view's centre as fractions of the canvas; `zoom` is the
 * magnification over the whole canvas (1 shows all of it, 2 shows the middle half of each side).
 */
export interface CameraView {
  cx: number;
  cy: number;
  zoom: number;
  /** Vertical magnification when it differs from `zoom` (an extension pulling back from its exact frame). */
  zoomY?: number;
}

export interface CameraPath {
  from: CameraView;
  to: CameraView;
}

const W = String.raw`[\s-]*`;
const MOVE_PATTERNS: Array<[CameraMoveKind, RegExp]> = [
  [
    'static',
    new RegExp(
      String.raw`\b(?:static|locked${W}off|fixed|still|stationary)${W}(?:camera|shot|frame)\b|` +
        String.raw`\bno${W}camera${W}(?:movement|motion)\b|\btripod\b`,
    ),
  ],
  // "Move in/back" only with "camera": "birds moving in the sky" is not a camera move.
  [
    'push-in',
    new RegExp(
      String.raw`\b(?:zoom(?:s|ed|ing)?${W}in(?:to)?|push(?:es|ed|ing)?${W}in|dolly(?:ing)?${W}in|` +
        String.raw`camera${W}mov(?:e|es|ing)${W}(?:in|closer|forward)|mov(?:e|es|ing)${W}closer)\b`,
    ),
  ],
  [
    'pull-back',
    new RegExp(
      String.raw`\b(?:zoom(?:s|ed|ing)?${W}out|pull(?:s|ed|ing)?${W}(?:back|out|away)|dolly(?:ing)?${W}(?:out|` +
        String.raw`back)|camera${W}mov(?:e|es|ing)${W}(?:away|back|backwards?))\b`,
    ),
  ],
  [
    'pan-left',
    new RegExp(
      String.raw`\b(?:pan(?:s|ned|ning)?|truck(?:s|ing)?|track(?:s|ing)?|dolly(?:ing)?|slid(?:e|es|` +
        String.raw`ing))${W}(?:to${W}the${W})?left(?:wards?)?\b`,
    ),
  ],
  [
    'pan-right',
    new RegExp(
      String.raw`\b(?:pan(?:s|ned|ning)?|truck(?:s|ing)?|track(?:s|ing)?|dolly(?:ing)?|slid(?:e|es|` +
        String.raw`ing))${W}(?:to${W}the${W})?right(?:wards?)?\b`,
    ),
  ],
  [
    'tilt-up',
    new RegExp(String.raw`\b(?:tilt(?:s|ed|ing)?|pan(?:s|ned|ning)?|crane(?:s|ing)?|pedestal)${W}up(?:wards?)?\b`),
  ],
  [
    'tilt-down',
    new RegExp(String.raw`\b(?:tilt(?:s|ed|ing)?|pan(?:s|ned|ning)?|crane(?:s|ing)?|pedestal)${W}down(?:wards?)?\b`),
  ],
];
const SLOW = /\b(?:slow(?:ly)?|gentle|gently|subtle|subtly|gradual(?:ly)?)\b/;
const FAST = /\b(?:fast|quick(?:ly)?|rapid(?:ly)?|swift(?:ly)?|dramatic(?:ally)?|crash|whip)\b/;

/** The default when a prompt names no move: a slow push-in reads as "cinematic" on almost any still. */
export const DEFAULT_CAMERA_MOVE: CameraMove = { kind: 'push-in', speed: 'slow' };

/** The move the prompt asks for; the earliest mention wins when several are named. */
export function parseCameraMove(prompt: string): CameraMove {
  const text = prompt.toLowerCase();
  let found: { kind: CameraMoveKind; at: number } | undefined;
  for (const [kind, pattern] of MOVE_PATTERNS) {
    const at = text.search(pattern);
    if (at >= 0 && (!found || at < found.at)) found = { kind, at };
  }
  if (!found) return DEFAULT_CAMERA_MOVE;
  const speed: CameraSpeed = SLOW.test(text) ? 'slow' : FAST.test(text) ? 'fast' : 'normal';
  return { kind: found.kind, speed };
}

/**
 * Everything the prompt asks of the camera, combined: "zoom in while panning left", "orbit around
 * the tower", "handheld shot of a street". One direction per axis (the earliest named wins); a
 * static shot has none of zoom, pan, tilt or orbit, but may still be handheld.
 */
export interface CameraMotion {
  zoom?: 'in' | 'out';
  pan?: 'left' | 'right';
  tilt?: 'up' | 'down';
  /** An orbit-like sweep: sideways travel on an arc that swings closer mid-way. */
  orbit?: 'left' | 'right';
  shake?: 'handheld' | 'strong';
  speed: CameraSpeed;
}

const ORBIT = new RegExp(
  String.raw`\b(?:orbit(?:s|ed|ing)?|arc(?:s|ing)?${W}(?:shot|around|over)|circl(?:e|es|ed|ing)${W}(?:around|` +
    String.raw`round)|revolv(?:e|es|ing)${W}around|sweep(?:s|ing)?|360${W}(?:degrees?|shot|spin)?)\b`,
);
const ORBIT_LEFT = new RegExp(String.raw`^.{0,40}?\b(?:left(?:wards?)?|counter${W}?clockwise|anti${W}?clockwise)\b`);
const HANDHELD = new RegExp(
  String.raw`\b(?:hand${W}?held|documentary${W}style|found${W}footage|shoulder${W}cam(?:era)?|vlog)\b`,
);
const SHAKE = new RegExp(
  String.raw`\b(?:shake|camera${W}shak(?:e|es|ing)|shak(?:y|ing)${W}cam(?:era)?|shaky|jittery|earthquake|tremors?)\b`,
);
const GENTLE = /\b(?:slight(?:ly)?|subtle|subtly|gentle|gently|light|mild|soft)\b/;

/** Every move the prompt names, combined; with none at all, the default slow push-in. */
export function parseCameraMotion(prompt: string): CameraMotion {
  const text = prompt.toLowerCase();
  const at = (kind: CameraMoveKind) => text.search(MOVE_PATTERNS.find(([k]) => k === kind)![1]);
  const first = <T>(options: Array<[T, number]>): T | undefined =>
    options.filter(([, i]) => i >= 0).sort((a, b) => a[1] - b[1])[0]?.[0];
  const speed: CameraSpeed = SLOW.test(text) ? 'slow' : FAST.test(text) ? 'fast' : 'normal';
  const motion: CameraMotion = { speed };
  const zoom = first<'in' | 'out'>([
    ['in', at('push-in')],
    ['out', at('pull-back')],
  ]);
  const pan = first<'left' | 'right'>([
    ['left', at('pan-left')],
    ['right', at('pan-right')],
  ]);
  const tilt = first<'up' | 'down'>([
    ['up', at('tilt-up')],
    ['down', at('tilt-down')],
  ]);
  const orbitAt = text.search(ORBIT);
  if (zoom) motion.zoom = zoom;
  if (orbitAt >= 0) motion.orbit = ORBIT_LEFT.test(text.slice(orbitAt)) ? 'left' : 'right';
  else if (pan) motion.pan = pan;
  if (tilt) motion.tilt = tilt;
  const handheld = HANDHELD.test(text);
  if (handheld || SHAKE.test(text)) motion.shake = handheld || GENTLE.test(text) ? 'handheld' : 'strong';
  const moves = motion.zoom || motion.pan || motion.tilt || motion.orbit;
  if (!moves && !motion.shake && at('static') < 0) return { zoom: 'in', speed: 'slow' };
  return motion;
}

// Magnification at the tight end of a zoom, and the framing a pan or tilt travels at.
export const ZOOM: Record<CameraSpeed, number> = { slow: 1.1, normal: 1.16, fast: 1.25 };
export const PAN_ZOOM: Record<CameraSpeed, number> = { slow: 1.1, normal: 1.14, fast: 1.2 };
// Above this the view would be upsampled well past the canvas and go visibly soft.
export const MAX_ZOOM = 1.3;

/**
 * Longer clips move further so the motion stays visible; short ones move less so it never looks
 * rushed. 5 s is the reference length.
 */
export function durationScale(durationSeconds: number): number {
  return Math.min(1.4, Math.max(0.5, 0.4 + 0.12 * durationSeconds));
}

/** Where the camera starts and ends for `move` over a clip of `durationSeconds`. */
export function cameraPath(move: CameraMove, durationSeconds: number): CameraPath {
  const scale = durationScale(durationSeconds);
  const centre = { cx: 0.5, cy: 0.5 };
  if (move.kind === 'static') return { from: { ...centre, zoom: 1 }, to: { ...centre, zoom: 1 } };
  if (move.kind === 'push-in' || move.kind === 'pull-back') {
    const tight = Math.min(MAX_ZOOM, Math.exp(Math.log(ZOOM[move.speed]) * scale));
    const wide = { ...centre, zoom: 1 };
    const close = { ...centre, zoom: tight };
    return move.kind === 'push-in' ? { from: wide, to: close } : { from: close, to: wide };
  }
  const zoom = PAN_ZOOM[move.speed];
  // The view may travel over all the slack the zoom leaves, less a little margin at the edges.
  const slack = (1 - 1 / zoom) * Math.min(1, 0.6 + 0.4 * scale) * 0.96;
  const a = 0.5 + slack / 2;
  const b = 0.5 - slack / 2;
  switch (move.kind) {
    // Panning left reveals what lies left: the view's centre moves towards x = 0.
    case 'pan-left':
      return { from: { cx: a, cy: 0.5, zoom }, to: { cx: b, cy: 0.5, zoom } };
    case 'pan-right':
      return { from: { cx: b, cy: 0.5, zoom }, to: { cx: a, cy: 0.5, zoom } };
    case 'tilt-up':
      return { from: { cx: 0.5, cy: a, zoom }, to: { cx: 0.5, cy: b, zoom } };
    case 'tilt-down':
      return { from: { cx: 0.5, cy: b, zoom }, to: { cx: 0.5, cy: a, zoom } };
  }
}

/** Sine ease-in-out: starts and stops at rest, so a clip never begins or ends with a jolt. */
export function easeInOut(t: number): number {
  const c = Math.min(1, Math.max(0, t));
  return (1 - Math.cos(Math.PI * c)) / 2;
}

/**
 * The view at time fraction `t` in [0, 1]. Zoom is interpolated geometrically, because equal ratios
 * look like equal speed; the centre linearly.
 */
export function viewAt(path: CameraPath, t: number): CameraView {
  const p = easeInOut(t);
  return {
    cx: path.from.cx + (path.to.cx - path.from.cx) * p,
    cy: path.from.cy + (path.to.cy - path.from.cy) * p,
    zoom: path.from.zoom * Math.pow(path.to.zoom / path.from.zoom, p),
  };
}

/** The tightest magnification the path reaches: how much larger than the output the canvas must be. */
export function maxZoom(path: CameraPath): number {
  return Math.max(path.from.zoom, path.to.zoom);
}
