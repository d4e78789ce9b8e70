import type { Kysely } from 'kysely';
import type { FileRecord, FileStore } from '../file-store.ts';
import type { Database } from './schema.ts';

export class SqlFileStore implements FileStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(file: FileRecord): Promise<void> {
    await this.db
      .insertInto('files')
      .values({
        id: file.id,
        account_id: file.accountId,
        filename: file.filename,
        bytes: file.bytes,
        mime_type: file.mimeType,
        purpose: file.purpose,
        blob_key: file.blobKey,
        created_at: file.createdAt,
      })
      .execute();
  }

  async get(id: string): Promise<FileRecord | undefined> {
    const row = await this.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      filename: row.filename,
      bytes: row.bytes,
      mimeType: row.mime_type,
      purpose: row.purpose,
      blobKey: row.blob_key,
      createdAt: row.created_at,
    };
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('files').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
