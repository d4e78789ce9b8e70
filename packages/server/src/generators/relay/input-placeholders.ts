/**
 * The placeholders of input templates (relay-input-template.ts); a leaf, so the config can check templates at start.
 */
export const PLACEHOLDER = /\{\{\s*(\w+)(?:\s*\|\s*(string|number))?\s*\}\}/g;
export const WHOLE = /^\{\{\s*(\w+)(?:\s*\|\s*(string|number))?\s*\}\}$/;
export const TEMPLATE_NAMES = [
  'prompt',
  'image',
  'images',
  'duration',
  'ratio',
  'seed',
  'width',
  'height',
  'resolution',
  'size',
  'generate_audio',
  'last_frame',
  'keyframes',
  'reference_images',
  'reference_audios',
] as const;

/** Every placeholder name a template uses. */
export function placeholdersInTemplate(template: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(PLACEHOLDER)) found.add(m[1]);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(template);
  return found;
}

/** Names a template uses that we do not fill: a typo stops the service at start, not a paid job later. */
export function unknownPlaceholders(template: unknown): string[] {
  return [...placeholdersInTemplate(template)].filter((name) => !(TEMPLATE_NAMES as readonly string[]).includes(name));
}
