import type { Kysely } from 'kysely';
import type { Character } from '../../domain/characters.ts';
import type { CharacterStore } from '../character-store.ts';
import type { Database } from './schema.ts';

export class SqlCharacterStore implements CharacterStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(character: Character): Promise<void> {
    await this.db
      .insertInto('video_characters')
      .values({
        id: character.id,
        account_id: character.accountId,
        name: character.name,
        file_id: character.fileId,
        created_at: character.createdAt,
      })
      .execute();
  }

  async get(id: string): Promise<Character | undefined> {
    const row = await this.db.selectFrom('video_characters').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      name: row.name,
      fileId: row.file_id,
      createdAt: Number(row.created_at),
    };
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('video_characters').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
