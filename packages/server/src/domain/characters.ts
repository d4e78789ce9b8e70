/**
 * OpenAI's characters (docs/openai-videos.md): a name over a reference video the account uploaded.
 * A character's id is its video's upload id under another prefix (`char_…` for `file-…`), so a
 * dialect names the video of a character it is sent without a lookup, and the engine checks that
 * upload as any other: the account's own, and a video.
 */
export interface Character {
  id: string;
  accountId: string;
  name: string;
  /** The reference video: an upload (`file-…`) of the account, purpose `character`. */
  fileId: string;
  createdAt: number;
}

const CHARACTER = 'char_';
const FILE = 'file-';

export function characterIdOf(fileId: string): string {
  if (!fileId.startsWith(FILE)) throw new Error(`not a file id: ${fileId}`);
  return `${CHARACTER}${fileId.slice(FILE.length)}`;
}

/** The upload of a character's video, or undefined for a string that is no character id. */
export function characterFileId(id: string): string | undefined {
  return /^char_[\w-]{1,60}$/.test(id) ? `${FILE}${id.slice(CHARACTER.length)}` : undefined;
}
