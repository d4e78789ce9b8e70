import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fillWorkflow,
  parseWorkflow,
  placeholdersIn,
  type WorkflowGraph,
} from '../../src/generators/comfyui/workflow-template.ts';
import { planRender } from '../../src/generators/comfyui/render-plan.ts';
import { clientIdFor, promptIdFor, seedFor } from '../../src/generators/comfyui/prompt-id.ts';
import { fromHistory, fromJob, fromQueue, pickVideo } from '../../src/generators/comfyui/prompt-status.ts';
import { PromptProgress } from '../../src/generators/comfyui/prompt-progress.ts';
import { WORKFLOW_PRESETS, loadPreset } from '../../src/generators/comfyui/workflow-presets.ts';
import { createComfyUiBackends } from '../../src/generators/comfyui/comfyui-backends.ts';
import type { GenerationJob } from '../../src/generators/generator.ts';
import { nodeDefs, validatePrompt } from '../support/comfyui-standin/standin-nodes.ts';

const job = (o: Partial<GenerationJob> = {}): GenerationJob => ({
  taskId: 't',
  attempt: 1,
  kind: 'generate',
  prompt: 'p',
  width: 1280,
  height: 720,
  duration: 5,
  fps: 24,
  images: [],
  ...o,
});

describe('comfyui prompt ids', () => {
  it('are canonical lowercase UUIDs, stable per attempt and different between attempts', () => {
    const id = promptIdFor('task_1', 7);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(promptIdFor('task_1', 7), id);
    assert.notEqual(promptIdFor('task_1', 8), id);
    assert.equal(seedFor('task_1'), seedFor('task_1'));
    assert.match(clientIdFor(id), /^vidgen-[0-9a-f]{32}$/);
  });
});

describe('comfyui workflow templates', () => {
  const graph: WorkflowGraph = {
    1: { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['2', 0] } },
    2: { class_type: 'EmptyLatent', inputs: { width: '{{width}}', height: '{{ height }}', seed: '{{seed}}' } },
    3: { class_type: 'SaveVideo', inputs: { filename_prefix: 'vidgen/{{prompt_id}}_{{width}}' } },
  };
  const values = {
    prompt: 'say "hi" {{seed}} }',
    negative_prompt: '',
    width: 832,
    height: 480,
    length: 81,
    fps: 16,
    seed: 42,
    prompt_id: 'abc',
  };

  it('puts typed values in whole placeholders and text in embedded ones, links untouched', () => {
    const filled = fillWorkflow(graph, values);
    assert.equal(filled[2].inputs.width, 832);
    assert.equal(filled[2].inputs.height, 480);
    assert.equal(filled[2].inputs.seed, 42);
    assert.equal(filled[3].inputs.filename_prefix, 'vidgen/abc_832');
    assert.deepEqual(filled[1].inputs.clip, ['2', 0]);
    // The prompt is a value, not template text: its quotes and braces stay as they are.
    assert.equal(filled[1].inputs.text, 'say "hi" {{seed}} }');
    assert.equal(graph[2].inputs.width, '{{width}}', 'the template itself is not changed');
  });

  it('refuses the editor format, unknown placeholders and missing values', () => {
    assert.throws(() => parseWorkflow({ nodes: [], links: [] }, 'x'), /Export \(API\)/);
    assert.throws(
      () => parseWorkflow({ 1: { class_type: 'A', inputs: { a: '{{colour}}' } } }, 'x'),
      /unknown placeholder \{\{colour\}\}/,
    );
    assert.throws(() => parseWorkflow({ 1: { inputs: {} } }, 'x'), /class_type/);
    assert.throws(
      () => fillWorkflow({ 1: { class_type: 'LoadImage', inputs: { image: '{{image}}' } } }, values),
      /\{\{image\}\}/,
    );
    assert.deepEqual([...placeholdersIn(graph)].sort(), ['height', 'prompt', 'prompt_id', 'seed', 'width']);
  });

  it('ships Wan 2.2 workflows that a ComfyUI validator accepts', async () => {
    const wan = await loadPreset('wan2.2-ti2v-5b');
    const defs = nodeDefs(
      {
        diffusion_models: ['wan2.2_ti2v_5B_fp16.safetensors'],
        checkpoints: [],
        text_encoders: ['umt5_xxl_fp8_e4m3fn_scaled.safetensors'],
        vae: ['wan2.2_vae.safetensors'],
      },
      (name) => name === 'first.png',
    );
    for (const [graph, image] of [
      [wan.textToVideo!, undefined],
      [wan.imageToVideo!, 'first.png'],
    ] as const) {
      const prompt = fillWorkflow(graph, { ...values, width: 1280, height: 704, length: 121, fps: 24, image });
      const result = validatePrompt(prompt, defs);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.nodeErrors, {});
    }
    assert.ok(placeholdersIn(wan.imageToVideo!).has('image') && !placeholdersIn(wan.textToVideo!).has('image'));
  });
});

describe('comfyui render plan', () => {
  const wan = { textToVideo: {}, imageToVideo: {}, ...WORKFLOW_PRESETS['wan2.2-ti2v-5b'] } as never;

  it('asks the model for its own granularity: Wan 2.2 5B sides in 32s, 4n+1 frames at 24 fps', () => {
    const p = planRender(job(), wan);
    assert.deepEqual([p.renderWidth, p.renderHeight, p.renderFrames, p.renderFps, p.frames], [1280, 704, 121, 24, 120]);
    const portrait = planRender(job({ width: 180, height: 320, duration: 1, fps: 30 }), wan);
    assert.deepEqual(
      [portrait.renderWidth, portrait.renderHeight, portrait.renderFrames, portrait.frames],
      [192, 320, 25, 30],
    );
  });

  it('renders big asks smaller and lets the encode scale up', () => {
    const p = planRender(job({ width: 1920, height: 1080 }), wan);
    assert.ok(p.renderWidth * p.renderHeight <= 1280 * 736 && p.renderWidth % 32 === 0 && p.renderHeight % 32 === 0);
    assert.ok(Math.abs(p.renderWidth / p.renderHeight - 16 / 9) < 0.1);
  });

  it('refuses what it cannot make', () => {
    assert.throws(() => planRender(job({ width: 641 }), wan), /even number/);
    assert.throws(() => planRender(job({ kind: 'edit' }), wan), /cannot edit/);
    assert.throws(() => planRender(job({ images: ['x.png'] }), { textToVideo: {} }), /cannot start from an image/);
  });
});

describe('comfyui status parsing', () => {
  const video = { filename: 'v_00001_.mp4', subfolder: 'video', type: 'output' };

  it('reads /api/jobs, /history and /queue into one shape', () => {
    assert.equal(fromJob({ status: 'in_progress' }).state, 'running');
    assert.deepEqual(fromJob({ status: 'completed', outputs: { 9: { images: [video], animated: [true] } } }).outputs, [
      video,
    ]);
    assert.equal(
      fromJob({
        status: 'failed',
        execution_error: { node_type: 'KSampler', exception_type: 'torch.OutOfMemoryError' },
      }).failure?.nodeType,
      'KSampler',
    );
    const interrupted = {
      status: {
        status_str: 'error',
        completed: false,
        messages: [
          ['execution_start', {}],
          ['execution_interrupted', {}],
        ],
      },
      outputs: {},
    };
    assert.equal(fromHistory(interrupted).state, 'canceled');
    assert.equal(fromHistory({ status: null, outputs: {} }).state, 'succeeded', 'builds before status tracking');
    assert.equal(
      fromQueue({ queue_running: [[0, 'a', {}, {}, []]], queue_pending: [[1, 'b', {}, {}, []]] }, 'b').state,
      'pending',
    );
  });

  it('reads progress_state (newer builds): finished and running nodes, several at once, other prompts ignored', () => {
    const graph: WorkflowGraph = {
      1: { class_type: 'CLIPTextEncode', inputs: {} },
      3: { class_type: 'KSampler', inputs: {} },
      8: { class_type: 'VAEDecode', inputs: {} },
    };
    const p = new PromptProgress('p1', graph);
    // comfy_execution/progress.py WebUIProgressHandler._send_progress_state: every non-pending node of the prompt.
    const node = (id: string, state: string, value: number, max: number) => ({
      value,
      max,
      state,
      node_id: id,
      prompt_id: 'p1',
      display_node_id: id,
      parent_node_id: null,
      real_node_id: id,
    });
    const state = (nodes: Record<string, unknown>, promptId = 'p1') => ({
      type: 'progress_state',
      data: { prompt_id: promptId, nodes },
    });
    assert.equal(p.apply(state({ 1: node('1', 'finished', 1, 1), 3: node('3', 'running', 5, 20) })), 'progress');
    // Weights by class (workflow-template.ts progressWeight): text encode 1, sampler 20, decode 3.
    assert.equal(p.fraction, (1 + 20 * 0.25) / 24);
    assert.equal(p.apply(state({ 3: node('3', 'running', 20, 20) }, 'someone-else')), undefined);
    assert.equal(p.fraction, (1 + 20 * 0.25) / 24);
    p.apply(state({ 1: node('1', 'finished', 1, 1), 3: node('3', 'finished', 20, 20), 8: node('8', 'running', 0, 1) }));
    assert.equal(p.fraction, 21 / 24);
    // A node expanded into others (a subgraph) reports under the id shown for it: ours.
    p.apply(state({ '8.0.1': { ...node('8.0.1', 'finished', 1, 1), display_node_id: '8' } }));
    assert.equal(p.fraction, 1);
  });

  it('picks a saved video over a preview, MP4 over WebM over GIF', () => {
    const files = [
      { filename: 'a.png', subfolder: '', type: 'output' },
      { filename: 'b.gif', subfolder: '', type: 'output' },
      { filename: 'c.mp4', subfolder: '', type: 'temp' },
      { filename: 'd.webm', subfolder: '', type: 'output' },
    ];
    assert.equal(pickVideo(files)?.filename, 'd.webm');
    assert.equal(pickVideo(files.slice(0, 1)), undefined);
  });
});

describe('comfyui config', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-comfyui-config-'));
    const own = JSON.parse(JSON.stringify((await loadPreset('wan2.2-ti2v-5b')).textToVideo));
    await writeFile(join(dir, 't2v.json'), JSON.stringify(own));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('builds one backend per model over a shared pool, with lanes from host slots', async () => {
    const config = {
      hosts: [
        { name: 'gpu-a', url: 'http://10.0.0.5:8188', slots: 2 },
        { name: 'gpu-b', url: 'http://10.0.0.6:8188' },
      ],
      backends: {
        'comfyui-wan22': { preset: 'wan2.2-ti2v-5b' },
        'comfyui-own': { text_to_video: 't2v.json', size_multiple: 16, hosts: ['gpu-b'], timeout_seconds: 600 },
      },
    };
    const built = await createComfyUiBackends(config, { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', baseDir: dir });
    assert.deepEqual(Object.keys(built.generators), ['comfyui-wan22', 'comfyui-own']);
    assert.deepEqual(built.lanes, { 'comfyui-wan22': 3, 'comfyui-own': 1 });
    assert.deepEqual(built.generators['comfyui-own'].kinds, ['generate']);
  });

  it('stops at start with a message naming the field', async () => {
    const deps = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', baseDir: dir };
    await assert.rejects(createComfyUiBackends({ hosts: [], backends: {} }, deps), /"hosts"/);
    await assert.rejects(
      createComfyUiBackends({ hosts: [{ name: 'a', url: 'http://h' }], backends: { b: {} } }, deps),
      /backends\.b: needs a "preset"/,
    );
    await assert.rejects(
      createComfyUiBackends({ hosts: [{ name: 'a', url: 'http://h' }], backends: { b: { preset: 'nope' } } }, deps),
      /unknown preset/,
    );
    await assert.rejects(
      createComfyUiBackends(
        { hosts: [{ name: 'a', url: 'http://h' }], backends: { b: { preset: 'wan2.2-ti2v-5b', hosts: ['z'] } } },
        deps,
      ),
      /unknown host "z"/,
    );
  });
});
