import type { Character } from '../domain/characters.ts';
import { characterIdOf } from '../domain/characters.ts';
import type { CharacterStore } from '../store/character-store.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import type { FileService, Staged } from './file-service.ts';

/** Display names: what a person types, not a document. */
const MAX_NAME = 200;

/**
 * OpenAI's characters (docs/openai-videos.md): a name over a reference video. The video is an
 * upload of the account (purpose `character`), checked as every uploaded MP4 is (probed with
 * ffprobe, within the upload limits), and kept until the account deletes the character, which
 * deletes the video too. A character of another account is a 404, as a missing one.
 */
export class CharacterService {
  constructor(private readonly deps: { characters: CharacterStore; files: FileService; clock: () => number }) {}

  /** Checks the name, stores the video and the character; a refused video leaves nothing behind. */
  async create(accountId: string, name: string | undefined, video: Staged & { filename: string }): Promise<Character> {
    const display = checkName(name);
    let file;
    try {
      file = await this.deps.files.uploadStaged(accountId, { ...video, purpose: 'character' });
    } catch (err) {
      if (!(err instanceof InvalidRequest)) throw err;
      throw new InvalidRequest(err.code, err.message.replaceAll('`file`', '`video`'), 'video');
    }
    if (file.mimeType !== 'video/mp4') {
      await this.deps.files.delete(accountId, file.id);
      throw new InvalidRequest('invalid_video', '`video` must be an MP4 video.', 'video');
    }
    const character: Character = {
      id: characterIdOf(file.id),
      accountId,
      name: display,
      fileId: file.id,
      createdAt: this.deps.clock(),
    };
    try {
      await this.deps.characters.insert(character);
    } catch (err) {
      await this.deps.files.delete(accountId, file.id).catch(() => undefined);
      throw err;
    }
    return character;
  }

  /** The account's character; its video must still be there (an upload the account deleted ends it). */
  async get(accountId: string, id: string): Promise<Character> {
    const character = await this.deps.characters.get(id);
    if (!character || character.accountId !== accountId) throw new NotFound('character', id);
    try {
      await this.deps.files.get(accountId, character.fileId);
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound('character', id);
      throw err;
    }
    return character;
  }

  /**
   * Deletes the character and its video. Finished tasks made with it keep their outputs; a queued one
   * that still needs the video fails when it runs (`video_unavailable`), never runs without it.
   */
  async delete(accountId: string, id: string): Promise<void> {
    const character = await this.deps.characters.get(id);
    if (!character || character.accountId !== accountId) throw new NotFound('character', id);
    await this.deps.characters.delete(id);
    await this.deps.files.delete(accountId, character.fileId).catch((err) => {
      if (!(err instanceof NotFound)) throw err;
    });
  }
}

function checkName(name: string | undefined): string {
  const trimmed = name?.trim() ?? '';
  if (trimmed === '') throw new InvalidRequest('missing_field', '`name` is required.', 'name');
  if ([...trimmed].length > MAX_NAME)
    throw new InvalidRequest('invalid_value', `\`name\` must be at most ${MAX_NAME} characters.`, 'name');
  return trimmed;
}
