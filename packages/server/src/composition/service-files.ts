import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import defaultModels from '../catalog/default-models.json' with { type: 'json' };

/** The database every process of one service shares: VIDGEN_DATABASE_URL, else SQLite in the data dir. */
export function databaseLocation(config: Config): string {
  return config.databaseUrl ?? join(config.dataDir, 'vidgen.db');
}

/** The model catalog as JSON: VIDGEN_MODELS_FILE, else the built-in one. */
export async function readCatalog(config: Config): Promise<unknown> {
  if (!config.modelsFile) return defaultModels;
  return JSON.parse(await readFile(config.modelsFile, 'utf8'));
}
