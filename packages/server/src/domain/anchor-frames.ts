/**
 * The frame of a video that shows a given time, as the built-in renderer places its anchors (the
 * first frame, keyframes, the last frame): frame `round(t / duration × (frames − 1))` of
 * `round(duration × fps)`, so the start is the first frame and the end the last. Submit uses the
 * same rounding to refuse two anchors on one frame, which no render could show both exactly.
 */
export function frameShowing(seconds: number, duration: number, fps: number): number {
  const frames = Math.round(duration * fps);
  return Math.min(frames - 1, Math.round((seconds / duration) * (frames - 1)));
}
