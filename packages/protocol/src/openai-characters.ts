import { Type, type Static } from '@sinclair/typebox';

/**
 * OpenAI's characters, as the official `openai` SDKs send and read them (openai-node
 * `src/resources/videos.ts`: `createCharacter`, `getCharacter`, `VideoCreateCharacterResponse`,
 * `VideoGetCharacterResponse`): a multipart create of `name` and `video`, answered `{id, created_at, name}`.
 */
export const VideoCharacter = Type.Object({
  id: Type.String({ description: '`char_…`: usable as a reference video (docs/openai-videos.md).' }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  name: Type.String({ description: 'Display name.' }),
});
export type VideoCharacter = Static<typeof VideoCharacter>;

/** The form of `POST /v1/videos/characters` (for the document: the form is read by the handler). */
export const VideoCharacterUpload = Type.Object({
  name: Type.String({ description: 'Display name, 1 to 200 characters.' }),
  video: Type.String({ format: 'binary', description: 'An MP4 video: the character, as a reference video.' }),
});

export const VideoCharacterDeleted = Type.Object({
  id: Type.String(),
  object: Type.Literal('video.character.deleted'),
  deleted: Type.Boolean(),
});
export type VideoCharacterDeleted = Static<typeof VideoCharacterDeleted>;
