import { Type, type Static } from '@sinclair/typebox';

/** OpenAI-style file object for uploaded first frames and reference images. */
export const FileObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('file'),
  bytes: Type.Integer(),
  created_at: Type.Integer(),
  filename: Type.String(),
  purpose: Type.String(),
  mime_type: Type.String(),
});
export type FileObject = Static<typeof FileObject>;

export const FileDeleted = Type.Object({ id: Type.String(), object: Type.Literal('file'), deleted: Type.Boolean() });
export type FileDeleted = Static<typeof FileDeleted>;

/** The multipart form of `POST /v1/files` (documentation only: multipart is parsed by the route). */
export const FileUpload = Type.Object({
  file: Type.String({ format: 'binary', description: 'A JPEG or PNG image, or an MP4 video.' }),
  purpose: Type.Optional(Type.String({ description: 'Default `vision`.' })),
});
