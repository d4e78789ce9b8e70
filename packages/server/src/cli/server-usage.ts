import { describeEnvironment } from '../config.ts';
import serverPackage from '../../package.json' with { type: 'json' };

export const SERVER_VERSION: string = serverPackage.version;

const COMMANDS = [
  'usage: vidgen-server [--role all|api|worker]       start the service: the API, the workers, or both (default)',
  '       vidgen-server keys create|list|revoke …      API keys',
  '       vidgen-server accounts create|list|show|set …',
  '       vidgen-server credits grant|deduct …',
  '       vidgen-server ledger verify|list …',
  '       vidgen-server migrate                        bring the database to the latest schema and exit',
  '       vidgen-server <command> --help | help <command>',
  '       vidgen-server --version',
];

/**
 * `vidgen-server --help`: the commands, then every environment variable with its default, taken
 * from the table `loadConfig` itself reads so the page cannot fall behind it.
 */
export function serverUsage(): string[] {
  const variables = describeEnvironment();
  const width = Math.max(...variables.map((v) => v.name.length));
  return [
    `vidgen-server ${SERVER_VERSION}: the vidgen video-generation service and its operator commands`,
    '',
    ...COMMANDS,
    '',
    "The operator commands (keys, accounts, credits, ledger, migrate) work on the server's database: run them",
    'with the same VIDGEN_DATA_DIR or VIDGEN_DATABASE_URL (and VIDGEN_MODELS_FILE) as the server.',
    '',
    'Environment (every setting comes from it):',
    ...variables.map((v) => `  ${v.name.padEnd(width)}  ${v.about} (default: ${v.fallback})`),
    '',
    'Also read: the AWS_* variables (S3 credentials and AWS_REGION) and the variables that relay channels',
    'name in `api_key_env` (VIDGEN_BACKENDS_FILE).',
  ];
}
