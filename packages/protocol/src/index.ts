export * from './common.ts';
export * from './family-a.ts';
export * from './family-b.ts';
export * from './openai-videos.ts';
export * from './lists.ts';
export * from './models.ts';
export * from './files.ts';
export * from './content.ts';
export * from './ops.ts';
export * from './webhooks.ts';
export * from './callbacks.ts';
export * from './storage.ts';
export * from './events.ts';
// The schema builder itself, so routes (and a new dialect) compose schemas without a TypeBox of their own.
export { Type } from '@sinclair/typebox';
export type { Static, TSchema, TObject } from '@sinclair/typebox';
export * from './billing.ts';
export * from './channels.ts';
export * from './mcp.ts';
