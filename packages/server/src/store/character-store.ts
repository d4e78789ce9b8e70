import type { Character } from '../domain/characters.ts';

/** The account's characters (OpenAI's `/v1/videos/characters`); their videos live in the file store. */
export interface CharacterStore {
  insert(character: Character): Promise<void>;
  get(id: string): Promise<Character | undefined>;
  /** False when there was no such character. */
  delete(id: string): Promise<boolean>;
}
