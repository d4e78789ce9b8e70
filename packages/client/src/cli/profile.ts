import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../node/atomic-file.ts';

/** What `vidgen login` saves: the default server and its key. */
export interface Profile {
  baseURL?: string;
  apiKey?: string;
}

export function profilePath(env: Record<string, string | undefined>): string {
  return env.VIDGEN_PROFILE ?? join(homedir(), '.vidgen', 'profile.json');
}

/** A missing profile is an empty one; an unreadable one is a mistake worth stopping for. */
export async function readProfile(path: string): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Profile;
    return { baseURL: stringOrUndefined(parsed.baseURL), apiKey: stringOrUndefined(parsed.apiKey) };
  } catch {
    throw new Error(`${path} is not valid JSON: fix it or run \`vidgen logout\`.`);
  }
}

/** The key is a secret: the file is 0600 in a 0700 directory, whatever the umask says. */
export async function writeProfile(path: string, profile: Profile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, `${JSON.stringify(profile, null, 2)}\n`);
  await chmod(path, 0o600);
}

export async function removeProfile(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}
