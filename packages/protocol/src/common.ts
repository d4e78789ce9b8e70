import { Type, type Static } from '@sinclair/typebox';

/** Every aspect ratio the service understands (spec 4.1); a model may allow fewer. */
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT_RATIO: AspectRatio = '16:9';

/** The only data-URI prefixes accepted for inline images (spec 2.4). */
export const DATA_URI_PREFIXES = ['data:image/jpeg;base64,', 'data:image/png;base64,'] as const;

export const ErrorBody = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String(),
    code: Type.Union([Type.String(), Type.Null()]),
    param: Type.Union([Type.String(), Type.Null()]),
  }),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const TaskError = Type.Object({ code: Type.String(), message: Type.String() });
export type TaskError = Static<typeof TaskError>;
