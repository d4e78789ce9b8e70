import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { buildScene } from '../../src/generators/ffmpeg/scene-svg.ts';
import { SUBJECT_WORDS } from '../../src/generators/ffmpeg/subject-words.ts';
import type { Box, Subject } from '../../src/generators/ffmpeg/scene-subjects.ts';

const root = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * Everyday nouns and what must be drawn for each: the test's own list, not the renderer's, so a
 * word the renderer forgot fails here instead of passing unseen.
 */
const NOUNS: Array<[RegExp, string[]]> = [
  [/\blighthouse/, ['lighthouse']],
  [/\b(?:paper )?boat/, ['boat']],
  [/\bharbou?r/, ['boat', 'water']],
  [/\b(?:pond|lake|river|sea|ocean|waves?)\b/, ['water']],
  [/\bhouse|cottage|cabin/, ['house']],
  [/\btrees?\b/, ['tree']],
  [/\bmountains?\b/, ['mountains']],
  [/\bcars?\b/, ['car']],
  [/\bbirds?\b|\bgulls?\b/, ['bird']],
  [/\bkite/, ['kite']],
  [/\bmoon\b/, ['moon']],
  [/\bwindmill/, ['windmill']],
  [/\bballoon/, ['balloon']],
];

/** Every prompt written in the README and the docs: JSON bodies, form fields, SDK calls and CLI flags. */
async function documentedPrompts(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const pkgs = (await readdir(join(root, 'packages'))).map((p) => join('packages', p, 'README.md'));
  const files = ['README.md', ...docs, ...pkgs, 'packages/server/src/generators/ffmpeg/README.md'];
  const prompts = new Set<string>();
  const patterns = [/"prompt"\s*:\s*"([^"{}]+)"/g, /\bprompt\s*[=:]\s*'([^']+)'/g, /--prompt\s+'([^']+)'/g];
  for (const file of files) {
    const text = await readFile(join(root, file), 'utf8').catch(() => '');
    for (const re of patterns) for (const m of text.matchAll(re)) prompts.add(m[1]);
  }
  return [...prompts];
}

/** Mean sRGB of the pixels in `inside` and not in `outside`, as CIELAB (D65). */
function meanLab(rgb: Buffer, width: number, height: number, inside: (x: number, y: number) => boolean) {
  let r = 0;
  let g = 0;
  let b = 0;
  let n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!inside(x, y)) continue;
      const i = (y * width + x) * 3;
      r += rgb[i];
      g += rgb[i + 1];
      b += rgb[i + 2];
      n++;
    }
  }
  return { lab: lab([r / n, g / n, b / n]), pixels: n };
}

function lab([r, g, b]: number[]): [number, number, number] {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const fn = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);
  return [116 * fn(Y) - 16, 500 * (fn(X) - fn(Y)), 200 * (fn(Y) - fn(Z))];
}

/**
 * CIE76 ΔE between the thing and the background around it: the mean colour of the pixels in its box
 * that it changed (the scene drawn without it tells which), against the mean of a ring around the
 * box a quarter of the box's size wide on each side.
 */
async function contrast(prompt: string, seed: number, width: number, height: number, subject: Subject, box: Box) {
  const scene = await rendered(prompt, width, height, seed);
  const without = await rendered(prompt, width, height, seed, subject);
  const inBox = (x: number, y: number) => x >= box.x && x < box.x + box.width && y >= box.y && y < box.y + box.height;
  const drawn = (x: number, y: number) => {
    if (!inBox(x, y)) return false;
    const i = (y * width + x) * 3;
    return [0, 1, 2].some((c) => Math.abs(scene.rgb[i + c] - without.rgb[i + c]) > 6);
  };
  const mx = Math.max(4, box.width / 4);
  const my = Math.max(4, box.height / 4);
  const inRing = (x: number, y: number) =>
    !inBox(x, y) && x >= box.x - mx && x < box.x + box.width + mx && y >= box.y - my && y < box.y + box.height + my;
  const thing = meanLab(scene.rgb, width, height, drawn);
  const ring = meanLab(scene.rgb, width, height, inRing).lab;
  // At least a tenth of its box is the thing itself: a box around nothing does not pass.
  const filled = thing.pixels / (box.width * box.height);
  return { dE: Math.hypot(thing.lab[0] - ring[0], thing.lab[1] - ring[1], thing.lab[2] - ring[2]), filled };
}

async function rendered(prompt: string, width: number, height: number, seed: number, hidden?: Subject) {
  const scene = buildScene({ prompt, seed, width, height, hidden });
  const { data } = await sharp(Buffer.from(scene.svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { ...scene, rgb: data };
}

/** The box clipped to the frame. */
function visible(b: Box, width: number, height: number): Box {
  const x = Math.max(0, Math.floor(b.x));
  const y = Math.max(0, Math.floor(b.y));
  return {
    x,
    y,
    width: Math.min(width, Math.ceil(b.x + b.width)) - x,
    height: Math.min(height, Math.ceil(b.y + b.height)) - y,
  };
}

/** Asserts that `subject` is drawn in the scene, covers 2 % of the frame and stands out by ΔE 10. */
async function assertDrawn(prompt: string, seed: number, width: number, height: number, subject: Subject) {
  const where = `"${prompt}" ${width}x${height} seed ${seed}: ${subject}`;
  const found = buildScene({ prompt, seed, width, height }).subjects.find((s) => s.subject === subject);
  assert.ok(found, `${where} is not drawn`);
  const box = visible(found.box, width, height);
  const share = (box.width * box.height) / (width * height);
  assert.ok(share >= 0.02, `${where} covers ${(share * 100).toFixed(1)} % of the frame`);
  const { dE, filled } = await contrast(prompt, seed, width, height, subject, box);
  assert.ok(filled >= 0.1, `${where} fills ${(filled * 100).toFixed(0)} % of its box`);
  assert.ok(dE >= 10, `${where} differs from the background around it by ΔE ${dE.toFixed(1)}`);
}

describe('everyday words: each thing a prompt names is drawn', () => {
  it('draws what every prompt of the README and the docs names, big enough and standing out', async () => {
    const prompts = await documentedPrompts();
    // The README's own: they must be among what was found, so the extraction cannot silently miss them.
    for (const p of ['a lighthouse at dusk', 'a paper boat on a pond', 'slow zoom in on the harbour', 'a red kite'])
      assert.ok(prompts.includes(p), `"${p}" not found in the docs`);
    let checked = 0;
    for (const prompt of prompts) {
      const wanted = NOUNS.filter(([re]) => re.test(prompt.toLowerCase())).flatMap(([, s]) => s);
      if (wanted.length === 0) continue;
      for (const [width, height, seed] of [
        [640, 360, 0],
        [360, 640, 0],
        [640, 360, 7],
      ]) {
        for (const subject of wanted) {
          await assertDrawn(prompt, seed, width, height, subject as Subject);
          checked++;
        }
      }
    }
    assert.ok(checked >= 12, `${checked} checks`);
  });

  it('draws each word of the vocabulary, alone and in company, by day, at dusk and at night', async () => {
    const prompts = [
      'a lighthouse',
      'a boat on the sea',
      'a house in a meadow',
      'a tree',
      'snowy mountains',
      'a lake with mountains',
      'a car on a country road',
      'a bird over the hills',
      'a kite in the sky',
      'the moon',
      'a forest pond',
      'a windmill',
      'a hot air balloon',
      'a house by a lake with a tree and a car',
      'a lighthouse and a boat, with birds and a kite',
    ];
    const times = ['', ' at dusk', ' at night'];
    const seen = new Set<string>();
    for (const base of prompts) {
      for (const time of times) {
        const prompt = `${base}${time}`;
        const wanted = NOUNS.filter(([re]) => re.test(prompt)).flatMap(([, s]) => s);
        for (const subject of wanted) {
          await assertDrawn(prompt, 3, 480, 270, subject as Subject);
          seen.add(subject);
        }
      }
    }
    assert.deepEqual([...seen].sort(), SUBJECT_WORDS.map(([s]) => s).sort());
  });

  it('docs/renderer.md lists every thing and every word of each', async () => {
    const doc = await readFile(join(root, 'docs', 'renderer.md'), 'utf8');
    for (const [subject, re] of SUBJECT_WORDS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| ${subject} |`));
      assert.ok(row, `${subject} has no row`);
      // Each word written in its row is one the renderer knows for that thing.
      for (const word of [...row.matchAll(/`([^`]+)`/g)].map((m) => m[1]))
        assert.match(word, re, `${subject}: ${word}`);
    }
  });
});
