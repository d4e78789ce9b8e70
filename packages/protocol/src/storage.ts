import { Type, type Static } from '@sinclair/typebox';

/** The longest `expires_after` xAI's Files API takes: 30 days, in seconds. */
const MAX_EXPIRY_SECONDS = 2_592_000;

/**
 * Where a finished video goes besides vidgen's own store (docs/storage.md): `output.upload_url`, a
 * signed PUT target (xAI's REST API; family A's field, an extension in the other dialects), and
 * `storage_options`, which keeps it among the account's own files (what the AI SDK's xAI provider
 * sends). A dialect's body spreads these properties.
 */
export const OutputFields = {
  output: Type.Optional(
    Type.Object(
      {
        upload_url: Type.String({
          minLength: 1,
          maxLength: 8192,
          description:
            'http(s) URL the MP4 is PUT to once verified (Content-Type: video/mp4), e.g. a presigned S3 or GCS URL. ' +
            'Retried on 5xx and time-outs; if it keeps failing the task is still done and carries `storage_error`.',
        }),
      },
      { description: "The caller's own storage (xAI's `output`)." },
    ),
  ),
  storage_options: Type.Optional(
    Type.Object(
      {
        filename: Type.String({ minLength: 1, maxLength: 255 }),
        expires_after: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_EXPIRY_SECONDS,
            description: 'Seconds the file is kept; default: until deleted.',
          }),
        ),
        public_url: Type.Optional(
          Type.Union([
            Type.Boolean(),
            Type.Object({
              expires_after: Type.Optional(Type.Integer({ minimum: 3600, maximum: MAX_EXPIRY_SECONDS })),
            }),
          ]),
        ),
      },
      {
        description:
          "Also keep the video among the account's files under `filename` (`/v1/files`); `public_url` adds a " +
          'signed link to it that needs no key.',
      },
    ),
  ),
};
const OutputObject = Type.Object(OutputFields);
export type OutputFields = Static<typeof OutputObject>;

/** The video kept among the account's files, as xAI's `file_output` reports it. */
export const FileOutput = Type.Object({
  file_id: Type.String(),
  filename: Type.String(),
  expires_at: Type.Optional(Type.Integer({ description: 'Unix seconds; absent: kept until deleted.' })),
  public_url: Type.Optional(Type.String({ description: 'Signed link to the file that needs no key.' })),
  public_url_expires_at: Type.Optional(Type.Integer({ description: 'Unix seconds.' })),
});
export type FileOutput = Static<typeof FileOutput>;

/** What a finished task says of the storage it was asked for, in every dialect's `video` object. */
export const StorageAnswerFields = {
  file_output: Type.Optional(FileOutput),
  storage_error: Type.Optional(
    Type.String({
      description:
        'Why the video could not be written to `output.upload_url` (or kept as a file); the video stays at vidgen.',
    }),
  ),
};

/**
 * The same fields where a dialect has no `video` object of its own (family B, OpenAI's shape): a
 * `video` object that holds only them, so every dialect's client finds them at `video.*` (vidgen extension).
 */
export const StorageVideo = Type.Object(StorageAnswerFields, {
  description: "vidgen extension: what became of the storage the request asked for (xAI's `video.file_output`).",
});
