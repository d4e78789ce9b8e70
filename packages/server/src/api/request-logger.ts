import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

/**
 * The logger of one request, made only when the request logs something. Most requests log
 * nothing but their access line, which api/access-log.ts writes itself: a pino child logger made
 * for every request cost a poll about half a microsecond (docs/performance.md).
 */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    Reflect.apply(this.logger.fatal, this.logger, args);
  }

  error(...args: unknown[]): void {
    Reflect.apply(this.logger.error, this.logger, args);
  }

  warn(...args: unknown[]): void {
    Reflect.apply(this.logger.warn, this.logger, args);
  }

  info(...args: unknown[]): void {
    Reflect.apply(this.logger.info, this.logger, args);
  }

  debug(...args: unknown[]): void {
    Reflect.apply(this.logger.debug, this.logger, args);
  }

  trace(...args: unknown[]): void {
    Reflect.apply(this.logger.trace, this.logger, args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}
