import { afterEach } from 'node:test';
import { ComfyUiStandIn, type StandInOptions } from './comfyui-standin.ts';

/**
 * Starts ComfyUI stand-ins as a test asks for them and closes them all after each test. Call it
 * inside a `describe`, so the `afterEach` belongs to that suite.
 */
export function standInsPerTest(ffmpeg: string): (options?: Partial<StandInOptions>) => Promise<ComfyUiStandIn> {
  const started: ComfyUiStandIn[] = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await s.close();
  });
  return async (options = {}) => {
    const s = await ComfyUiStandIn.start({ ffmpeg, ...options });
    started.push(s);
    return s;
  };
}
