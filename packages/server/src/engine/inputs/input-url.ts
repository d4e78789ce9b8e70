import { isHttpUrl } from '../../security/http-url.ts';

/** Longest input URL accepted; a task row should never carry a megabyte of URL. */
export const MAX_INPUT_URL_LENGTH = 4096;

/**
 * The one check of an input URL at submit, for images and videos alike: undefined when it is
 * an http(s) URL of acceptable length, else what is wrong with it.
 */
export function inputUrlProblem(url: string): 'too_long' | 'not_http' | undefined {
  if (url.length > MAX_INPUT_URL_LENGTH) return 'too_long';
  return isHttpUrl(url) ? undefined : 'not_http';
}
