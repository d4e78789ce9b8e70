import type { FastifyInstance } from 'fastify';
import { VideoCharacter, VideoCharacterDeleted, VideoCharacterUpload } from '@vidgen/protocol';
import type { Character } from '../../domain/characters.ts';
import type { CharacterService } from '../../engine/character-service.ts';
import type { FileService } from '../../engine/file-service.ts';
import { ApiError } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { readUpload } from '../files/multipart-upload.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const tags = ['OpenAI Videos'];
const errors = errorResponses();
const answer = described(VideoCharacter, 'The character');

const toWire = (c: Character): VideoCharacter => ({
  id: c.id,
  created_at: Math.floor(c.createdAt / 1000),
  name: c.name,
});

/**
 * OpenAI's characters (openai-node `src/resources/videos.ts`, `createCharacter` and
 * `getCharacter`): `POST /v1/videos/characters` (multipart `name` and `video`),
 * `GET /v1/videos/characters/{id}`, and `DELETE` (a vidgen extension: OpenAI's SDK has none). Registered
 * where multipart is parsed. The static `characters` segment is matched before the task routes' `{id}`.
 */
export function registerCharacterRoutes(
  app: FastifyInstance,
  deps: { characters: CharacterService; files: FileService },
): void {
  app.post(
    '/v1/videos/characters',
    {
      schema: {
        operationId: 'createVideoCharacter',
        summary: 'OpenAI Videos: create a character from a video (multipart `name` and `video`, an MP4)',
        tags,
        response: { 200: answer, ...errors },
      },
      // Multipart is read by the handler, not validated as a body: the form is declared for the document only.
      config: {
        swaggerTransform: ({ schema, url }) => ({
          schema: { ...schema, consumes: ['multipart/form-data'], body: VideoCharacterUpload },
          url,
        }),
      },
    },
    async (request) => {
      if (!request.isMultipart()) {
        throw new ApiError(
          415,
          'invalid_request_error',
          'unsupported_media_type',
          'Send the character as multipart/form-data with `name` and the MP4 in the field `video`.',
        );
      }
      const upload = await readUpload(request, (source, truncated) => deps.files.stage(source, truncated), 'video');
      const character = await deps.characters.create(callerOf(request).account.id, upload.fields.name, upload);
      return toWire(character);
    },
  );

  app.get<{ Params: { character_id: string } }>(
    '/v1/videos/characters/:character_id',
    {
      schema: {
        operationId: 'getVideoCharacter',
        summary: 'OpenAI Videos: a character of this account',
        tags,
        params: idParams('character_id'),
        response: { 200: answer, ...errors },
      },
    },
    async (request) => toWire(await deps.characters.get(callerOf(request).account.id, request.params.character_id)),
  );

  app.delete<{ Params: { character_id: string } }>(
    '/v1/videos/characters/:character_id',
    {
      schema: {
        operationId: 'deleteVideoCharacter',
        summary: 'OpenAI Videos: delete a character and its video (vidgen extension)',
        tags,
        params: idParams('character_id'),
        response: { 200: described(VideoCharacterDeleted, 'Deleted: the id is now a 404'), ...errors },
      },
    },
    async (request): Promise<VideoCharacterDeleted> => {
      await deps.characters.delete(callerOf(request).account.id, request.params.character_id);
      return { id: request.params.character_id, object: 'video.character.deleted', deleted: true };
    },
  );
}
