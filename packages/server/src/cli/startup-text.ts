import type { Config } from '../config.ts';

/**
 * What a person starting `vidgen-server` reads on stderr (the JSON log goes to stdout): where it
 * listens, which optional surfaces are on, and, the first time, the API key on a line of its own,
 * so it can be copied without reading JSON.
 */
export function startupText(config: Config, url: string, bootstrapKey?: { secret: string }): string[] {
  const lines = [`vidgen-server ${config.role} is listening on ${url} (data: ${config.dataDir})`, surfaces(config)];
  if (bootstrapKey)
    lines.push(
      '',
      "No API key existed, so one was created for account 'default'. It is shown only this once:",
      '',
      `    ${bootstrapKey.secret}`,
      '',
      'Make more with `vidgen-server keys create --account <name>`.',
    );
  return lines;
}

/** One line: each optional surface, on or off, and the variable that turns it on. */
export function surfaces(config: Config): string {
  const admin = config.adminToken ? 'admin API on (/admin/v1/)' : 'admin API off (set VIDGEN_ADMIN_TOKEN)';
  const metrics = config.metricsToken
    ? 'metrics on, behind VIDGEN_METRICS_TOKEN'
    : 'metrics on without a token (set VIDGEN_METRICS_TOKEN)';
  const webhooks =
    config.role === 'api' ? 'webhooks on (delivered by worker processes)' : 'webhooks on (delivered by this process)';
  // The collector's origin only: an endpoint's path or query may carry a token.
  const tracing = config.tracing
    ? `tracing on (OTLP to ${new URL(config.tracing.endpoint).origin})`
    : 'tracing off (set OTEL_EXPORTER_OTLP_ENDPOINT)';
  return `optional surfaces: ${admin}; ${metrics}; ${webhooks}; ${tracing}`;
}
