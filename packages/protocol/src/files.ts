import { Type, type Static } from '@sinclair/typebox';

/** OpenAI-style file object for uploaded first frames and reference images. */
export const FileObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('file'),
  bytes: Type.Integer(),
  created_at: Type.Integer(),
  filename: Type.String(),
  purpose: Type.String({
    description:
      '`vision` (default), `batch` (a batch’s JSONL input), `batch_output` (a batch’s output or error file).',
  }),
  mime_type: Type.String(),
  status: Type.Literal('processed', { description: 'OpenAI’s field: every stored file is processed.' }),
  expires_at: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Unix seconds when the file is deleted (a batch’s files, after it ends); null: kept until deleted.',
  }),
});
export type FileObject = Static<typeof FileObject>;

export const FileDeleted = Type.Object({ id: Type.String(), object: Type.Literal('file'), deleted: Type.Boolean() });
export type FileDeleted = Static<typeof FileDeleted>;

/** The multipart form of `POST /v1/files` (documentation only: multipart is parsed by the route). */
export const FileUpload = Type.Object({
  file: Type.String({
    format: 'binary',
    description:
      'A JPEG or PNG image, or an MP4 video; with `purpose: batch`, a JSONL batch input (200 MB, 50,000 lines).',
  }),
  purpose: Type.Optional(Type.String({ description: 'Default `vision`; `batch` for a batch’s input file.' })),
});
