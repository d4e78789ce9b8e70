/**
 * @vidgen/client/node — the parts that need a file system: a durable journal, checked
 * downloads to files, local images. Re-exports the browser-safe SDK so Node code needs one import.
 */
export * from '../index.ts';
export { NodeVidgenClient, type NodeClientOptions, type NodeResumeOptions } from './node-vidgen-client.ts';
export { FileJournal } from './file-journal.ts';
export { downloadVideo, type DownloadTarget, type DownloadOptions, type DownloadResult } from './download-video.ts';
export { PartialDownload } from './partial-download.ts';
export { writeFileAtomic } from './atomic-file.ts';
export {
  sniffImage,
  readLocalImage,
  toDataUri,
  isRemoteImage,
  familyAImage,
  familyBImage,
  type LocalImage,
  type ImageMime,
} from './local-image.ts';
