export * from './common.ts';
export * from './family-a.ts';
export * from './family-b.ts';
export * from './models.ts';
export * from './files.ts';
export type { Static, TSchema } from '@sinclair/typebox';
